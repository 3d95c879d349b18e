"""How every subtask's metric is computed: per-line integer counts, summed, then combined.

A subtask module gives ``COUNT_NAMES``, ``line_counts(gold_record, prediction)`` (one row
of integers per gold line; ``prediction`` is None when the line is not answered) and
``combine(totals, n_lines)`` (the figures from the column sums; ``score`` is the main
figure). ``metric`` below is the only place that sums the rows, so a resampling of lines
(the bootstrap) sums rows of the same ``count_table`` and calls the same ``combine``:
a metric is never implemented twice.

Predictions are scored as they are: a gold item with no prediction counts as wrong (and
in ``n_missing``); a malformed answer counts as wrong, except that a discourse answer that
is not a valid tree still earns credit for each correct attachment. Ratios with a zero
denominator are 0, as scikit-learn's ``zero_division=0``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

LineCounts = Callable[[dict, "dict | None"], tuple[int, ...]]


def ratio(numerator: int | float, denominator: int | float) -> float:
    return numerator / denominator if denominator else 0.0


def prf(true_positives: int, n_predicted: int, n_gold: int) -> dict[str, float]:
    """Precision, recall and F1 from counts; F1 = 2TP / (predicted + gold), as scikit-learn."""
    return {
        "precision": ratio(true_positives, n_predicted),
        "recall": ratio(true_positives, n_gold),
        "f1": ratio(2 * true_positives, n_predicted + n_gold),
    }


def count_table(subtask: Subtask, gold: list[dict], pred: dict[str, dict]) -> np.ndarray:
    """The counts of every gold line (rows, in gold order) by ``subtask.count_names`` (columns)."""
    rows = [subtask.line_counts(record, pred.get(record["id"])) for record in gold]
    return np.array(rows, dtype=np.int64).reshape(len(gold), len(subtask.count_names))


def column_totals(table: np.ndarray) -> tuple[int, ...]:
    """The column sums as Python integers, so the figures are plain floats and ints."""
    return tuple(int(total) for total in table.sum(axis=0))


def metric(subtask: Subtask, gold: list[dict], pred: dict[str, dict]) -> dict:
    """The subtask's figures for ``gold`` (records with their ``id``) and ``pred`` (id -> record)."""
    return subtask.combine(column_totals(count_table(subtask, gold, pred)), len(gold))

