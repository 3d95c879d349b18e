"""How numerals answers differ: the forms written and how many wrote each."""

from __future__ import annotations

from annotation.subtasks.differences import Differences, LabelledAnswers, tally


def differences(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    forms = [(label, str(answer.get("answer", ""))) for label, answer in answers]
    return Differences(
        template="annotation/adjudicate/differences/numerals.html",
        summaries=[value for _, value in forms],
        details={"tallies": tally(forms, counted)},
    )
