"""Percentile-bootstrap intervals of a score, and of the difference between two scores.

The resampling units are gold lines sorted by id (Python string order), indices 0..n-1.
``numpy.random.default_rng(seed).integers(0, n, size=(n_resamples, n))`` draws the
resamples; each row is scored with the subtask's own metric on the lines it picks (a line
picked twice counts twice, a prediction follows its gold line) and the bounds are
``numpy.percentile(scores, [2.5, 97.5])``.

A row is scored from the count table of scoring.metrics (one row of integer counts per
gold line): how often the row picks each line (``resample_counts``), times that line's
counts, summed, then the subtask's ``combine``; a metric is never implemented twice. The
identity resample (every line once) therefore gives exactly ``metric()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from scoring.metrics import as_table

if TYPE_CHECKING:
    import numpy as np

    from scoring.subtasks import Subtask

PERCENTILES = (2.5, 97.5)
NO_UNITS = "no gold line to resample (n = 0), so there is no interval"
# The multiplicities are float32 (half the memory of int64, and a matrix product BLAS does):
# a sum of count rows is exact in float32 while it stays within 2**24, else it is taken in int64.
FLOAT32_EXACT = 2**24


def resample_indices(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """The index matrix (n_resamples x n_units) of the bootstrap with ``seed``."""
    import numpy as np  # imported on first need: scoring without an interval does not need it

    return np.random.default_rng(seed).integers(0, n_units, size=(n_resamples, n_units))


@lru_cache(maxsize=1)
def resample_counts(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each resample (row of ``resample_indices``) picks each unit (column), read-only.

    The last matrix is kept: a report scores and compares several submissions on the same
    gold lines with the same seed, and drawing the resamples is most of an interval's cost."""
    import numpy as np

    indices = resample_indices(n_units, n_resamples, seed)
    counts = np.empty((n_resamples, n_units), dtype=np.float32)
    for row, picked in enumerate(indices):  # row by row: cache-friendly, far faster than one bincount
        counts[row] = np.bincount(picked, minlength=n_units)
    counts.flags.writeable = False
    return counts


def units(gold: list[dict]) -> list[dict]:
    """The resampling units: the gold records sorted by id (Python string order)."""
    return sorted(gold, key=lambda record: record["id"])


def resampled_totals(table: np.ndarray, counts: np.ndarray) -> list[tuple[int, ...]]:
    """The column sums of ``table`` (lines x counts) over each resample (row of ``counts``,
    the multiplicity of each line), as Python ints."""
    import numpy as np

    n_units = table.shape[0]
    largest = int(np.abs(table).max()) if table.size else 0
    if largest * n_units <= FLOAT32_EXACT:  # every partial sum is an integer float32 holds exactly
        sums = (counts @ table.astype(np.float32)).astype(np.int64)
    else:
        sums = counts.astype(np.int64) @ table
    return [tuple(row) for row in sums.tolist()]


def resampled_figures(subtask: Subtask, table: np.ndarray, counts: np.ndarray) -> list[dict]:
    """The subtask's figures for each resample (row of ``counts``) of the lines of ``table``."""
    n_units = counts.shape[1]
    return [subtask.combine(totals, n_units) for totals in resampled_totals(table, counts)]


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


def resampled_scores_together(subtask: Subtask, row_sets: list[list[tuple[int, ...]]], n_resamples: int,
                              seed: int) -> list[list[dict]]:
    """For each of several predictions over the same gold lines (``row_sets``: the count rows
    of each, ``count_rows`` over ``units(gold)``, all of one length), the subtask's figures over
    each of ``n_resamples`` resamples drawn with ``seed`` (none when there is no line). One
    product of the resample matrix with their tables side by side: the sums are the same exact
    integers, and a product is a numpy (BLAS) call whose idle threads then spin, one call
    instead of one per prediction."""
    import numpy as np

    n_units, width = len(row_sets[0]), len(subtask.count_names)
    if not n_units:
        return [[] for _ in row_sets]
    counts = resample_counts(n_units, n_resamples, seed)
    totals = resampled_totals(np.hstack([as_table(rows, width) for rows in row_sets]), counts)
    return [[subtask.combine(sums[start:start + width], n_units) for sums in totals]
            for start in range(0, width * len(row_sets), width)]


def score_intervals(subtask: Subtask, figures: list[dict]) -> dict:
    """``ci_low``/``ci_high`` of the main score (and ``<figure>_ci_low``/``_ci_high`` of
    the subtask's ``interval_figures``) over the resamples whose figures
    (``resampled_scores_together``) are ``figures``; null bounds when there is no line to resample."""
    keys = interval_keys(subtask)
    if not figures:
        return null_bounds([key for _, low, high in keys for key in (low, high)])
    bounds: dict = {}
    for figure, low, high in keys:
        bounds[low], bounds[high] = percentile_bounds([resample[figure] for resample in figures])
    return bounds


def difference_interval(scores_a: list[dict], scores_b: list[dict]) -> dict:
    """``diff_ci_low``/``diff_ci_high``: bounds of score A - score B over the same resamples
    (``scores_a``, ``scores_b``: the figures of A and B over each, ``resampled_scores_together``)."""
    if not scores_a:
        return null_bounds(["diff_ci_low", "diff_ci_high"])
    low, high = percentile_bounds([a["score"] - b["score"] for a, b in zip(scores_a, scores_b)])
    return {"diff_ci_low": low, "diff_ci_high": high}
