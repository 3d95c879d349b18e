"""How the submitted answers of one item differ, in the subtask's own terms (the adjudication
page and training feedback): each subtask's ``differences`` part (annotation.subtasks), by
default each distinct answer, who gave it and how many (``answer_tally``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from annotation.subtasks import part
from scoring.subtasks import get_subtask

# (label, answer fields) of each submitted answer, in the page's order.
LabelledAnswers = list[tuple[str, dict]]


def gold_answer_fields(subtask: str, gold: dict) -> dict:
    """The gold line as answer fields, to be compared as one more answer (the scorer's
    ``gold_answer`` of the subtask: numerals' first accepted form stands for them all)."""
    return get_subtask(subtask).gold_answer_fields(gold)


@dataclass(frozen=True)
class Differences:
    template: str  # draws the differences section from `details`
    summaries: list[str]  # one line per answer, in the order given
    details: dict


@dataclass(frozen=True)
class Tally:
    value: str
    labels: list[str]  # who gave it, a reference (the answer key) among them
    count: int  # how many of the answers gave it: a reference is shown, not counted


def tally(values: list[tuple[str, str]], counted: int, always: tuple[str, ...] = ()) -> list[Tally]:
    """Per distinct value (``always`` first, in their order, even if nobody gave them): who gave
    it, and how many of the first ``counted`` (the answers; after them, a reference)."""
    order = list(always) + [value for _, value in values if value not in always]
    seen: dict[str, list[str]] = {value: [] for value in order}
    counts = dict.fromkeys(order, 0)
    for index, (label, value) in enumerate(values):
        seen[value].append(label)
        counts[value] += index < counted
    return [Tally(value, labels, counts[value]) for value, labels in seen.items()]


def answer_tally(subtask: str) -> Callable[[dict, LabelledAnswers, int], Differences]:
    """The default: each distinct answer (its one field's text, or its fields as JSON), who gave
    it and how many."""
    fields = get_subtask(subtask).answer_fields

    def shown(answer: dict) -> str:
        if len(fields) == 1 and isinstance(answer.get(fields[0]), str):
            return answer[fields[0]]
        return json.dumps({name: answer.get(name) for name in fields}, ensure_ascii=False)

    def answer_differences(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
        values = [(label, shown(answer)) for label, answer in answers]
        return Differences(
            template="annotation/adjudicate/differences/default.html",
            summaries=[value for _, value in values],
            details={"tallies": tally(values, counted)},
        )

    return answer_differences


def differences(
    subtask: str, payload: dict, answers: LabelledAnswers, reference: tuple[str, dict] | None = None
) -> Differences:
    """How ``answers`` differ; ``reference`` (label, answer fields), e.g. the answer key, is
    shown beside them as one more (its summary last) but counted in no tally."""
    shown = answers + [reference] if reference is not None else answers
    of_subtask = part(subtask, "differences", None) or answer_tally(subtask)
    return of_subtask(payload, shown, len(answers))
