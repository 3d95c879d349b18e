"""Percentile-bootstrap intervals of a score, and of the difference between two scores.

The resampling units are gold lines sorted by id (Python string order), indices 0..n-1.
``numpy.random.default_rng(seed).integers(0, n, size=(n_resamples, n))`` draws the
resamples; each row is scored with the subtask's own metric on the lines it picks (a line
picked twice counts twice, a prediction follows its gold line) and the bounds are
``numpy.percentile(scores, [2.5, 97.5])``.

A row is scored from the count table of scoring.metrics (one row of integer counts per
gold line): how often the row picks each line, times that line's counts, summed, then
the subtask's ``combine``; a metric is never implemented twice. The identity resample
(every line once) therefore gives exactly ``metric()``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from scoring.metrics import count_table

if TYPE_CHECKING:
    import numpy as np

    from scoring.subtasks import Subtask

PERCENTILES = (2.5, 97.5)
# Resamples summed per block: the multiplicity block (block x lines, int64) is what the
# interval costs in memory beyond the index matrix.
BLOCK = 128
NO_UNITS = "no gold line to resample (n = 0), so there is no interval"


def resample_indices(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """The index matrix (n_resamples x n_units) of the bootstrap with ``seed``."""
    import numpy as np  # imported on first need: scoring without an interval does not need it

    return np.random.default_rng(seed).integers(0, n_units, size=(n_resamples, n_units))


def units(gold: list[dict]) -> list[dict]:
    """The resampling units: the gold records sorted by id (Python string order)."""
    return sorted(gold, key=lambda record: record["id"])


def resampled_totals(table: np.ndarray, indices: np.ndarray) -> Iterator[tuple[int, ...]]:
    """The column sums of ``table`` (lines x counts) over each row of ``indices``, as Python ints."""
    import numpy as np

    n_units = table.shape[0]
    for start in range(0, indices.shape[0], BLOCK):
        block = indices[start:start + BLOCK]
        offsets = np.arange(block.shape[0], dtype=np.int64)[:, None] * n_units
        multiplicity = np.bincount((block + offsets).ravel(), minlength=block.shape[0] * n_units)
        sums = multiplicity.reshape(block.shape[0], n_units) @ table
        yield from (tuple(int(value) for value in row) for row in sums)


def resampled_figures(subtask: Subtask, gold: list[dict], pred: dict[str, dict], indices: np.ndarray) -> list[dict]:
    """The subtask's figures for each resample (row of ``indices`` into ``units(gold)``)."""
    table = count_table(subtask, units(gold), pred)
    n_units = indices.shape[1]
    return [subtask.combine(totals, n_units) for totals in resampled_totals(table, indices)]


def percentile_bounds(values: Sequence[float]) -> tuple[float, float]:
    import numpy as np

    low, high = np.percentile(np.asarray(values, dtype=np.float64), PERCENTILES)
    return float(low), float(high)


def null_bounds(keys: Sequence[str]) -> dict:
    """Null bounds for ``keys`` and ``reasons`` saying why."""
    return {**{key: None for key in keys}, "reasons": {key: NO_UNITS for key in keys}}


def interval_keys(subtask: Subtask) -> list[tuple[str, str, str]]:
    """(figure, low key, high key) of every interval ``score --ci`` reports for ``subtask``."""
    return [("score", "ci_low", "ci_high")] + [
        (figure, f"{figure}_ci_low", f"{figure}_ci_high") for figure in subtask.interval_figures
    ]


def score_intervals(subtask: Subtask, gold: list[dict], pred: dict[str, dict], n_resamples: int, seed: int) -> dict:
    """``ci_low``/``ci_high`` of the main score (and ``<figure>_ci_low``/``_ci_high`` of
    the subtask's ``interval_figures``) over ``n_resamples`` resamples of ``gold``."""
    keys = interval_keys(subtask)
    if not gold:
        return null_bounds([key for _, low, high in keys for key in (low, high)])
    figures = resampled_figures(subtask, gold, pred, resample_indices(len(gold), n_resamples, seed))
    bounds: dict = {}
    for figure, low, high in keys:
        bounds[low], bounds[high] = percentile_bounds([resample[figure] for resample in figures])
    return bounds


def difference_interval(subtask: Subtask, gold: list[dict], pred_a: dict[str, dict], pred_b: dict[str, dict],
                        n_resamples: int, seed: int) -> dict:
    """``diff_ci_low``/``diff_ci_high``: bounds of score A - score B over the same resamples."""
    if not gold:
        return null_bounds(["diff_ci_low", "diff_ci_high"])
    indices = resample_indices(len(gold), n_resamples, seed)
    scores_a = resampled_figures(subtask, gold, pred_a, indices)
    scores_b = resampled_figures(subtask, gold, pred_b, indices)
    low, high = percentile_bounds([a["score"] - b["score"] for a, b in zip(scores_a, scores_b)])
    return {"diff_ci_low": low, "diff_ci_high": high}
