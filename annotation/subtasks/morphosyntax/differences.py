"""How morphosyntax answers differ: the verdicts, and a word diff of each correction against the sentence."""

from __future__ import annotations

from annotation.subtasks.differences import Differences, LabelledAnswers, tally
from annotation.subtasks.morphosyntax.widget import word_diff
from scoring.subtasks.morphosyntax import CORRECT, INCORRECT


def differences(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    sentence = str(payload.get("sentence", ""))
    verdicts = [(label, str(answer.get("answer", ""))) for label, answer in answers]
    corrections = [
        {"label": label, "pieces": word_diff(sentence, str(answer.get("corrected_sentence") or ""))}
        for label, answer in answers
        if answer.get("answer") == INCORRECT
    ]
    return Differences(
        template="annotation/adjudicate/differences/morphosyntax.html",
        summaries=[
            f"{answer.get('answer')}: {answer.get('corrected_sentence')}"
            if answer.get("answer") == INCORRECT
            else str(answer.get("answer", ""))
            for _, answer in answers
        ],
        details={"tallies": tally(verdicts, counted, (CORRECT, INCORRECT)), "corrections": corrections},
    )
