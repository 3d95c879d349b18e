"""The figures of a report beyond the main and secondary metrics: each subtask's own
(``breakdown`` of its module, default none).

Every figure the metric already defines is taken from the subtask's own ``metric`` or its
per-line counts (``scoring.metrics.count_rows``, combined on all lines or on a group of them);
what no metric counts (a confusion matrix, relation confusions) is tallied by the subtask from
the gold and predicted answers as they are scored. ``breakdown(key, gold, pred)`` returns a
dict of plain values (JSON-ready); ``rows_by_id``, the count rows of ``pred`` by gold id
(``scoring.metrics.count_rows_by_id``), when they are counted already.
"""

from __future__ import annotations

from scoring.metrics import count_rows
from scoring.subtasks import get_subtask


def breakdown(key: str, gold: list[dict], pred: dict[str, dict],
              rows_by_id: dict[str, tuple[int, ...]] | None = None) -> dict:
    """The per-subtask figures of a report for ``gold`` (the scored gold records) and ``pred``;
    every figure of the metric from the count rows of ``gold``'s lines (``rows_by_id``, or
    counted here once for every figure and group)."""
    subtask = get_subtask(key)
    if rows_by_id is None:
        rows = count_rows(subtask, gold, pred)
    else:
        rows = [rows_by_id[record["id"]] for record in gold]
    return subtask.breakdown(subtask, gold, pred, rows)
