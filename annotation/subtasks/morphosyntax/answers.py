"""What a morphosyntax answer may hold and what a person's submit is refused for."""

from __future__ import annotations

from django.utils.translation import gettext_noop as _

from annotation.core.problems import problem_from
from annotation.subtasks.limits import TEXT_MARGIN, AnswerLimits
from scoring.problems import Problem
from scoring.subtasks import morphosyntax

# The texts of this subtask's rules (annotation.subtasks.rules): template -> English msgid.
MESSAGES = {
    "answer_rule/unchanged_correction": _(
        "The correction is the same as the original sentence: correct it, or choose POPRAWNE."
    ),
}


def answer_limits(answer: dict, item: dict) -> AnswerLimits:
    """The correction at most twice the sentence plus ``TEXT_MARGIN``."""
    return AnswerLimits(text_limits={"corrected_sentence": 2 * len(item.get("sentence", "")) + TEXT_MARGIN})


def rules(answer: dict, payload: dict) -> list[Problem]:
    """A correction differs from the sentence (after the scorer's normalisation)."""
    correction = answer.get("corrected_sentence")
    if answer.get("answer") != morphosyntax.INCORRECT or not isinstance(correction, str):
        return []
    normalise = morphosyntax.normalise
    original = normalise({"corrected_sentence": str(payload.get("sentence", ""))})["corrected_sentence"]
    if normalise({"corrected_sentence": correction})["corrected_sentence"] == original:
        return [problem_from(MESSAGES, "answer_rule/unchanged_correction")]
    return []
