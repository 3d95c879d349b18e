"""How the submitted answers of one item differ, in the subtask's own terms (adjudication page).

choice subtasks (wsd, coreference): the candidates chosen and how many chose each;
morphosyntax: the verdicts, and a word diff of each correction against the sentence;
numerals: the forms written and how many wrote each; commas: the positions where the answers
differ; discourse: the units whose head or relation differ, and each answer's tree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotation.subtasks.widgets.commas import sentence_pieces
from annotation.subtasks.widgets.discourse import tree_view, units_in_text_order
from annotation.subtasks.widgets.morphosyntax import INCORRECT, word_diff
from scoring.subtasks import get_subtask

# (label, answer fields) of each submitted answer, in the page's order.
LabelledAnswers = list[tuple[str, dict]]


def gold_answer_fields(subtask: str, gold: dict) -> dict:
    """The gold line as answer fields, to be compared as one more answer: numerals' first
    accepted form stands for them all (the pages list the others)."""
    if subtask == "numerals":
        return {"answer": gold["answers"][0]}
    return {name: gold[name] for name in get_subtask(subtask).answer_fields if name in gold}


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


def _tally(values: list[tuple[str, str]], counted: int, always: tuple[str, ...] = ()) -> list[Tally]:
    """Per distinct value (``always`` first, in their order, even if nobody gave them): who gave
    it, and how many of the first ``counted`` (the answers; after them, a reference)."""
    order = list(always) + [value for _, value in values if value not in always]
    seen: dict[str, list[str]] = {value: [] for value in order}
    counts = dict.fromkeys(order, 0)
    for index, (label, value) in enumerate(values):
        seen[value].append(label)
        counts[value] += index < counted
    return [Tally(value, labels, counts[value]) for value, labels in seen.items()]


def _choices(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    letters = tuple(sorted((payload.get("candidates") or {}).keys())) or ("A", "B", "C", "D")
    chosen = [(label, str(answer.get("answer", ""))) for label, answer in answers]
    return Differences(
        template="annotation/adjudicate/differences/choice.html",
        summaries=[value for _, value in chosen],
        details={"tallies": _tally(chosen, counted, letters)},
    )


def _morphosyntax(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
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
        details={"tallies": _tally(verdicts, counted, ("POPRAWNE", INCORRECT)), "corrections": corrections},
    )


def _numerals(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    forms = [(label, str(answer.get("answer", ""))) for label, answer in answers]
    return Differences(
        template="annotation/adjudicate/differences/numerals.html",
        summaries=[value for _, value in forms],
        details={"tallies": _tally(forms, counted)},
    )


def _comma_state(answer: dict, marker: int) -> str:
    if marker in (answer.get("commas") or []):
        return "required"
    return "optional" if marker in (answer.get("optional") or []) else "none"


def _commas(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    pieces = sentence_pieces(str(payload.get("sentence_with_positions", "")))
    markers = [piece.marker for piece in pieces if piece.marker is not None]
    states = {marker: [_comma_state(answer, marker) for _, answer in answers] for marker in markers}
    differing = {marker for marker, shown in states.items() if len(set(shown)) > 1}
    words = {"required": _("comma"), "optional": _("optional"), "none": "–"}

    def summary(answer: dict) -> str:
        required = ", ".join(str(k) for k in answer.get("commas") or []) or "–"
        optional = ", ".join(str(k) for k in answer.get("optional") or [])
        return _("commas at %(required)s") % {"required": required} + (
            "; " + _("optional at %(optional)s") % {"optional": optional} if optional else ""
        )

    return Differences(
        template="annotation/adjudicate/differences/commas.html",
        summaries=[summary(answer) for _, answer in answers],
        details={
            "pieces": pieces,
            "differing": differing,
            "labels": [label for label, _ in answers],
            "rows": [
                {"marker": marker, "states": [words[state] for state in states[marker]]}
                for marker in markers
                if marker in differing
            ],
        },
    )


def _discourse(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    units = units_in_text_order(payload)
    numbers = {unit.du_id: unit.number for unit in units}

    def attachment(answer: dict, du_id: str) -> str:
        for entry in answer.get("discourse_units") or []:
            if isinstance(entry, dict) and entry.get("du_id") == du_id:
                if entry.get("head") is None:
                    return _("root")
                return f"→ {numbers.get(entry.get('head'), '?')} {entry.get('relation') or ''}".rstrip()
        return "–"

    rows = []
    for unit in units:
        cells = [attachment(answer, unit.du_id) for _, answer in answers]
        rows.append({"unit": unit, "cells": cells, "differs": len(set(cells)) > 1})
    return Differences(
        template="annotation/adjudicate/differences/discourse.html",
        summaries=[
            _("%(count)s units differ from the others") % {"count": sum(
                any(row["cells"][index] != other for other in row["cells"]) for row in rows
            )}
            for index in range(len(answers))
        ],
        details={
            "labels": [label for label, _ in answers],
            "rows": rows,
            "differing_count": sum(row["differs"] for row in rows),
            "trees": [{"label": label, **tree_view(payload, answer)} for label, answer in answers],
        },
    )


_BY_SUBTASK: dict[str, Callable[[dict, LabelledAnswers, int], Differences]] = {
    "wsd": _choices,
    "coreference": _choices,
    "morphosyntax": _morphosyntax,
    "numerals": _numerals,
    "commas": _commas,
    "discourse": _discourse,
}


def differences(
    subtask: str, payload: dict, answers: LabelledAnswers, reference: tuple[str, dict] | None = None
) -> Differences:
    """How ``answers`` differ; ``reference`` (label, answer fields), e.g. the answer key, is
    shown beside them as one more (its summary last) but counted in no tally."""
    shown = answers + [reference] if reference is not None else answers
    return _BY_SUBTASK[subtask](payload, shown, len(answers))
