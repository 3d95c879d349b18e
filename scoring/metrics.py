"""How every subtask's metric is computed: per-line integer counts, summed, then combined.

A subtask module gives ``COUNT_NAMES``, ``line_counts(gold_record, prediction)`` (one row
of integers per gold line; ``prediction`` is None when the line is not answered) and
``combine(totals, n_lines)`` (the figures from the column sums; ``score`` is the main
figure). ``metric`` sums the rows with ``column_totals`` and combines the sums; a
resampling of lines (the bootstrap) takes rows of the same counts (``count_table``, a numpy
array), sums them and calls the same ``combine``: a metric is never implemented twice.

Predictions are scored as they are: a gold item with no prediction counts as wrong (and
in ``n_missing``); a malformed answer counts as wrong, except that a discourse answer that
is not a valid tree still earns credit for each correct attachment. Ratios with a zero
denominator are 0, as scikit-learn's ``zero_division=0``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from scoring.subtasks import Subtask


def ratio(numerator: int | float, denominator: int | float) -> float:
    return numerator / denominator if denominator else 0.0


def prf(true_positives: int, n_predicted: int, n_gold: int) -> dict[str, float]:
    """Precision, recall and F1 from counts; F1 = 2TP / (predicted + gold), as scikit-learn."""
    return {
        "precision": ratio(true_positives, n_predicted),
        "recall": ratio(true_positives, n_gold),
        "f1": ratio(2 * true_positives, n_predicted + n_gold),
    }


def count_rows(subtask: Subtask, gold: list[dict], pred: dict[str, dict]) -> list[tuple[int, ...]]:
    """The counts of every gold line (in gold order), by ``subtask.count_names``."""
    return [subtask.line_counts(record, pred.get(record["id"])) for record in gold]


def count_rows_by_id(subtask: Subtask, gold: list[dict], pred: dict[str, dict]) -> dict[str, tuple[int, ...]]:
    """The counts of every gold line by its id (ids are unique in a gold file): a prediction
    counted once can be scored on any part of the gold, in any order."""
    return {record["id"]: subtask.line_counts(record, pred.get(record["id"])) for record in gold}


def count_table(subtask: Subtask, gold: list[dict], pred: dict[str, dict]) -> np.ndarray:
    """``count_rows`` as an integer array (lines x counts), for resampling lines."""
    return as_table(count_rows(subtask, gold, pred), len(subtask.count_names))


def as_table(rows: list[tuple[int, ...]], width: int) -> np.ndarray:
    """Count rows as an integer array (lines x ``width``)."""
    import numpy as np  # imported on first need: scoring a file does not need it (0.1 s)

    return np.array(rows, dtype=np.int64).reshape(len(rows), width)


def column_totals(rows: Iterable[Sequence[int]], width: int) -> tuple[int, ...]:
    """The sums of ``width`` columns of count rows (a list of rows or a ``count_table``), as
    Python integers, so that the figures are plain floats and ints."""
    totals = tuple(int(sum(column)) for column in zip(*rows))
    return totals or (0,) * width


def metric(subtask: Subtask, gold: list[dict], pred: dict[str, dict]) -> dict:
    """The subtask's figures for ``gold`` (records with their ``id``) and ``pred`` (id -> record)."""
    return combined(subtask, count_rows(subtask, gold, pred))


def combined(subtask: Subtask, rows: list[tuple[int, ...]]) -> dict:
    """The subtask's figures from the count rows of all its gold lines, in any order (the
    sums are the same integers)."""
    return subtask.combine(column_totals(rows, len(subtask.count_names)), len(rows))
