"""What a numerals answer may hold, what a person's submit is refused for (digits, the target's
brackets) and what it is asked to confirm (words Morfeusz 2 does not know as numeral forms)."""

from __future__ import annotations

import re

from django.utils.translation import gettext_noop as _

from annotation.core.problems import Text, problem_from
from annotation.subtasks.limits import TEXT_MARGIN, AnswerLimits
from annotation.subtasks.numerals.forms import check_words
from annotation.subtasks.rules import Caution
from scoring.problems import Problem
from scoring.subtasks import numerals

NUMERAL_CHARACTERS_PER_DIGIT = 40

# The texts of this subtask's rules and caution (annotation.subtasks.rules): template -> English
# msgid, or (singular, plural) said by the parameter ``count``.
MESSAGES: dict[str, Text] = {
    "answer_rule/digits": _("Write the number in words: the answer may not contain digits."),
    "answer_rule/target_brackets": _("Write only the numeral, without the [[ ]] brackets."),
    "caution/unknown_words": (
        "The dictionary does not know %(words)s as a numeral form. Check the spelling; if the form is right, "
        "press Enter again (or “Save anyway”).",
        "The dictionary does not know %(words)s as numeral forms. Check the spelling; if the forms are right, "
        "press Enter again (or “Save anyway”).",
    ),
}


_DIGIT = re.compile(r"\d")


def answer_limits(answer: dict, item: dict) -> AnswerLimits:
    """The answer at most ``NUMERAL_CHARACTERS_PER_DIGIT`` characters per digit of the target
    plus ``TEXT_MARGIN``."""
    digits = sum(len(match.group("body")) for match in numerals.TARGET.finditer(item.get("sentence", "")))
    return AnswerLimits(text_limits={"answer": NUMERAL_CHARACTERS_PER_DIGIT * digits + TEXT_MARGIN})


def rules(answer: dict, payload: dict) -> list[Problem]:
    """The number is written out in words: no digits, and not the target's [[ ]] brackets."""
    value = answer.get("answer")
    if not isinstance(value, str):
        return []
    refusals = []
    if _DIGIT.search(value):
        refusals.append(problem_from(MESSAGES, "answer_rule/digits"))
    if numerals.TARGET_OPEN in value or numerals.TARGET_CLOSE in value:
        refusals.append(problem_from(MESSAGES, "answer_rule/target_brackets"))
    return refusals


def caution(answer: dict, payload: dict) -> Caution | None:
    """Words of the answer Morfeusz 2 does not know as numeral forms (a typo, or a form
    missing from the dictionary): asked once, then saved as confirmed."""
    value = answer.get("answer")
    if not isinstance(value, str):
        return None
    unknown = [word.text for word in check_words(value) if not word.is_numeral]
    if not unknown:
        return None
    # ``words`` as the text shows them, ``unknown_words`` as they are.
    asked = problem_from(MESSAGES, "caution/unknown_words", words=", ".join(f"„{word}”" for word in unknown),
                         unknown_words=unknown, count=len(unknown))
    return Caution(asked, {"confirmed_unknown_words": unknown})
