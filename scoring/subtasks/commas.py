"""Subtask 6, commas: the markers [1]..[n] of a sentence where a comma is required or optional."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from scoring.metrics import combined, prf, ratio
from scoring.problems import Problem, problem
from scoring.reliability import AnswerTable, Figures, alpha, masi_distances, nominal_alpha, observed_agreement
from scoring.text import is_int

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

NUMBER = 6
TITLE = "Comma placement"
ANSWER_FIELDS = ("commas", "optional")

# A position between words: [1] ... [n].
MARKER = re.compile(r"\[(?P<label>[0-9]+)\]")


def markers(sentence: str) -> list[int]:
    """The marker numbers of a sentence, in text order."""
    return [int(match["label"]) for match in MARKER.finditer(sentence)]


def marker_count(sentence: str) -> int:
    """``len(markers(sentence))``, without making the numbers (a third of the time)."""
    return len(MARKER.findall(sentence))


def check_input(record: dict) -> list[Problem]:
    found = markers(record["sentence_with_positions"])
    field = "sentence_with_positions"
    if not found:
        return [problem("no_markers", field)]
    if found != list(range(1, len(found) + 1)):
        shown = " ".join(f"[{number}]" for number in found)
        return [problem("bad_markers", field, count=len(found), found=shown)]
    return []


def check_answer(answer: dict, item: dict | None) -> list[Problem]:
    problems = []
    for field in ANSWER_FIELDS:
        indices = answer[field]
        if indices != sorted(set(indices)):
            problems.append(problem("unsorted", field))
    both = sorted(set(answer["commas"]) & set(answer["optional"]))
    if both:
        problems.append(problem("in_both", "optional", positions=both))
    if item is not None:
        count = marker_count(item["sentence_with_positions"])
        for field in ANSWER_FIELDS:
            unknown = [index for index in answer[field] if index > count]
            if unknown:
                problems.append(problem("unknown_marker", field, positions=unknown, count=count))
    return problems


def normalise(answer: dict) -> dict:
    """Marker lists ascending without duplicates (the metric compares sets anyway)."""
    result = dict(answer)
    for field in ANSWER_FIELDS:
        value = result.get(field)
        if isinstance(value, list) and all(is_int(index) for index in value):
            result[field] = sorted(set(value))
    return result


# Metric: exact-set accuracy on ``commas`` (main); micro P/R/F1 over (item, position) pairs;
# lenient exact-set accuracy, where gold-optional positions are ignored on both sides. An
# empty gold set is matched by an empty prediction.
# An answer is right when the task is done in full (see ITEM_FIGURE in the registry).
ITEM_FIGURE = "exact_set_accuracy"
COUNT_NAMES = ("exact", "lenient", "true_positives", "n_predicted", "n_gold_positions", "missing")


def _marker_set(value: object) -> set[int] | None:
    """The set of marker indices, or None when ``value`` is not a list of integers."""
    if not isinstance(value, list) or not all(is_int(index) for index in value):
        return None
    return set(value)


def line_counts(gold: dict, prediction: dict | None) -> tuple[int, ...]:
    gold_commas, gold_optional = set(gold["commas"]), set(gold["optional"])
    if prediction is None:
        return (0, 0, 0, 0, len(gold_commas), 1)
    predicted = _marker_set(prediction.get("commas"))
    if predicted is None:
        return (0, 0, 0, 0, len(gold_commas), 0)
    return (
        int(predicted == gold_commas),
        int(predicted - gold_optional == gold_commas - gold_optional),
        len(predicted & gold_commas),
        len(predicted),
        len(gold_commas),
        0,
    )


def combine(totals: tuple[int, ...], n_lines: int) -> dict:
    exact, lenient, true_positives, n_predicted, n_gold_positions, missing = totals
    micro = prf(true_positives, n_predicted, n_gold_positions)
    return {
        "score": ratio(exact, n_lines),
        "exact_set_accuracy": ratio(exact, n_lines),
        "lenient_exact_set_accuracy": ratio(lenient, n_lines),
        "micro_precision": micro["precision"],
        "micro_recall": micro["recall"],
        "micro_f1": micro["f1"],
        "n_gold": n_lines,
        "n_missing": missing,
    }


# Agreement: marker alpha (nominal; units = (item, marker) for every marker 1..n of the item;
# value = required, optional or none in that answer), exact-set agreement (observed agreement
# on the set of required commas), MASI alpha (units = items; values = the sets of required
# commas). The majority answer: every marker's value given by more than half of the answers.
MARKER_VALUES = ("required", "optional", "none")


def answer_value(answer: dict) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(answer["commas"]), tuple(answer["optional"])


def marker_counts(answers: list[dict], n_markers: int) -> list[dict[str, int]]:
    """For every marker 1..n of an item, how many of ``answers`` make it ``required`` (in
    ``commas``), ``optional`` or ``none``; values no answer gives are left out."""
    required = [0] * (n_markers + 1)
    optional = [0] * (n_markers + 1)
    for answer in answers:
        for marker in answer["commas"]:
            required[marker] += 1
        for marker in answer["optional"]:
            optional[marker] += 1
    n_answers = len(answers)
    return [
        {value: count for value, count in zip(MARKER_VALUES, (given, maybe, n_answers - given - maybe)) if count}
        for given, maybe in zip(required[1:], optional[1:])
    ]


def agreement_figures(table: AnswerTable, figures: Figures) -> None:
    marker_units: list[dict[str, int]] = []
    required_sets: list[Counter] = []
    for item, answers in table.answered:
        marker_units.extend(marker_counts(answers, marker_count(item["sentence_with_positions"])))
        required_sets.append(Counter(frozenset(answer["commas"]) for answer in answers))
    figures.add("marker_alpha", lambda: nominal_alpha(marker_units))
    figures.add("exact_set_agreement", lambda: observed_agreement(required_sets))
    figures.add("masi_alpha", lambda: alpha(required_sets, masi_distances))


def majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    winners = []
    for counts in marker_counts(answers, marker_count(item["sentence_with_positions"])):
        value, count = max(counts.items(), key=lambda pair: pair[1])
        if 2 * count <= len(answers):
            return None, "no majority"
        winners.append(value)
    return {
        "commas": [marker for marker, value in enumerate(winners, start=1) if value == "required"],
        "optional": [marker for marker, value in enumerate(winners, start=1) if value == "optional"],
    }, None


# The report: exact-set accuracy by the number of gold commas, and the required commas' precision and recall.
COMMA_BUCKETS = ("0", "1", "2", "3+")


def _comma_bucket(record: dict) -> str:
    return COMMA_BUCKETS[min(len(record["commas"]), len(COMMA_BUCKETS) - 1)]


def breakdown(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    buckets = [_comma_bucket(record) for record in gold]
    by_bucket = []
    for bucket in COMMA_BUCKETS:
        group = [row for row_bucket, row in zip(buckets, rows) if row_bucket == bucket]
        by_bucket.append({
            "gold_commas": bucket,
            "n_items": len(group),
            "exact_set_accuracy": combined(subtask, group)["exact_set_accuracy"] if group else None,
        })
    figures = combined(subtask, rows)
    return {
        "by_gold_commas": by_bucket,
        "required_precision": figures["micro_precision"],
        "required_recall": figures["micro_recall"],
    }


def disagreement_kinds(answers: list[dict], item: dict) -> list[str]:
    """Every position whose state (required, optional, none) differs."""
    counts = marker_counts(answers, marker_count(item["sentence_with_positions"]))
    return [f"[{marker}]" for marker, values in enumerate(counts, start=1) if len(values) > 1]


# Dawid–Skene (scoring.dawid_skene): every marker a unit, its class required, optional or none;
# the item's answer puts each marker where its chosen class says.

def dawid_skene_units(answer: dict, item: dict) -> tuple[str, ...]:
    required, optional = set(answer["commas"]), set(answer["optional"])
    return tuple("required" if marker in required else "optional" if marker in optional else "none"
                 for marker in range(1, marker_count(item["sentence_with_positions"]) + 1))


def dawid_skene_answer(classes: tuple[str, ...], answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    return {
        "commas": [marker for marker, value in enumerate(classes, start=1) if value == "required"],
        "optional": [marker for marker, value in enumerate(classes, start=1) if value == "optional"],
    }, None
