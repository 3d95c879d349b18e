"""What the two four-way choice subtasks (wsd, coreference) share: the labels A-D, the
answer, macro-F1, the agreement figures and majority rule, and the answer as one Dawid–Skene class.

Macro-F1 over A, B, C, D equals scikit-learn's ``f1_score(gold, pred, labels=["A", "B",
"C", "D"], average="macro", zero_division=0)`` where a missing or invalid prediction is a
label outside A-D: a false negative of its gold label and a false positive of nothing.
The mean is always over all four labels, so a label that occurs neither in gold nor in the
predictions has F1 = 0 and pulls the mean down: with gold and predictions all "A" and all
right, macro-F1 is 0.25, not 1.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import TYPE_CHECKING

from scoring.metrics import combined, prf, ratio
from scoring.problems import Problem
from scoring.reliability import (
    AnswerTable,
    Figures,
    fleiss_kappa,
    fleiss_units,
    majority_by_value,
    nominal_alpha,
    observed_agreement,
)

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

LABELS = ("A", "B", "C", "D")
ANSWER_FIELDS = ("answer",)

# Per label its true positives, false positives and false negatives, then the totals.
# An answer is right when it is the gold label (see ITEM_FIGURE in the registry).
ITEM_FIGURE = "accuracy"
COUNT_NAMES = (*(f"{label}_{count}" for label in LABELS for count in ("tp", "fp", "fn")), "correct", "missing", "invalid")
_COLUMN = {name: index for index, name in enumerate(COUNT_NAMES)}


def check_answer(answer: dict, item: dict | None) -> list[Problem]:
    """The schema's A-D enum says it all."""
    return []


def normalise(answer: dict) -> dict:
    """A label is exactly A-D, so nothing is rewritten."""
    return dict(answer)


def line_counts(gold: dict, prediction: dict | None) -> tuple[int, ...]:
    row = [0] * len(COUNT_NAMES)
    gold_label = gold["answer"]
    predicted = None
    if prediction is None:
        row[_COLUMN["missing"]] = 1
    else:
        predicted = prediction.get("answer")
        if predicted not in LABELS:
            row[_COLUMN["invalid"]] = 1
            predicted = None
    if predicted == gold_label:
        row[_COLUMN["correct"]] = 1
        row[_COLUMN[f"{gold_label}_tp"]] = 1
        return tuple(row)
    if gold_label in LABELS:
        row[_COLUMN[f"{gold_label}_fn"]] = 1
    if predicted is not None:
        row[_COLUMN[f"{predicted}_fp"]] = 1
    return tuple(row)


def combine(totals: tuple[int, ...], n_lines: int) -> dict:
    count = dict(zip(COUNT_NAMES, totals, strict=True))
    per_label = {}
    for label in LABELS:
        true_positives, false_positives, false_negatives = (count[f"{label}_{name}"] for name in ("tp", "fp", "fn"))
        per_label[label] = prf(true_positives, true_positives + false_positives, true_positives + false_negatives) | {
            "support": true_positives + false_negatives}
    macro_f1 = sum(figures["f1"] for figures in per_label.values()) / len(LABELS)
    return {
        "score": macro_f1,
        "macro_f1": macro_f1,
        "accuracy": ratio(count["correct"], n_lines),
        "per_label": per_label,
        "n_gold": n_lines,
        "n_missing": count["missing"],
        "n_invalid": count["invalid"],
    }


# Agreement: nominal alpha (units = items, values = labels), Fleiss' kappa over A-D, observed
# agreement; the majority answer is the label more than half of the answers give.

def answer_value(answer: dict) -> str:
    return answer["answer"]


def agreement_figures(table: AnswerTable, figures: Figures) -> None:
    counts = [Counter(answer["answer"] for answer in answers) for _, answers in table.answered]
    figures.add("alpha", lambda: nominal_alpha(counts))
    kappa_units = fleiss_units(counts)
    figures.add("fleiss_kappa", lambda: fleiss_kappa(kappa_units, LABELS))
    figures.add("fleiss_kappa_n_items", lambda: len(kappa_units))
    figures.add("observed_agreement", lambda: observed_agreement(counts))


def majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    return majority_by_value(answers, answer_value)


# The report: per-label figures and the confusion matrix (scoring.breakdown).

# Columns of a confusion matrix for answers that are no label: not answered, or not A-D.
NO_LABEL = "none"
MACRO_F1_NOTE = (
    "macro-F1 averages the F1 of the four labels A-D, as the benchmark defines it: a label that "
    "neither the gold nor the answers of a (small) scored subset contain has F1 0 and pulls the average down"
)


def breakdown(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    labels = list(LABELS)
    confusion = {label: dict.fromkeys([*labels, NO_LABEL], 0) for label in labels}
    for record in gold:
        answer = pred.get(record["id"], {}).get("answer")
        confusion[record["answer"]][answer if answer in labels else NO_LABEL] += 1
    return {
        "per_label": combined(subtask, rows)["per_label"],
        "confusion": {"labels": labels, "columns": [*labels, NO_LABEL], "rows": confusion},
        "note": MACRO_F1_NOTE,
    }


def disagreement_kinds(answers: list[dict], item: dict) -> list[str]:
    """Every pair of different labels given."""
    return [f"{first}/{second}" for first, second in combinations(sorted({answer["answer"] for answer in answers}), 2)]


# Dawid–Skene (scoring.dawid_skene): one unit per item, its class the label.

def dawid_skene_units(answer: dict, item: dict) -> tuple[str]:
    return (answer["answer"],)


def dawid_skene_answer(classes: tuple[str, ...], answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    return {"answer": classes[0]}, None
