"""Whether a difference between two submissions on the same items is beyond chance, and the
adjustment of several such tests (see scoring/README.md, "Significance").

- ``randomization_p_value``: the paired approximate-randomization test of the main metric.
  The swaps are ``numpy.random.default_rng(seed).integers(0, 2, size=(rounds, n))`` (drawn in
  consecutive blocks of rows, which gives the same numbers); in round r a 1 at unit i exchanges
  the count rows of A and B at that unit, and d_r is the main metric of A's side minus B's side.
  A round counts when |d_r| >= |d| - 1e-9 (d observed); p = (1 + count) / (rounds + 1).
- ``mcnemar``: the exact McNemar test of the units each side gets right and the other not:
  min(1, 2 P[X <= min(b, c)]) for X ~ Binomial(b + c, 1/2), 1.0 when b + c = 0.
- ``holm``: Holm's step-down adjusted p-values, in the order given.

A swapped round's totals are A's totals plus the swap matrix times (B's rows - A's rows): the
same exact integers as summing the exchanged rows, in one matrix product per block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from scoring.intervals import resampled_totals
from scoring.metrics import as_table, column_totals

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

TOLERANCE = 1e-9  # a round as extreme as the observed difference up to floating-point noise
BLOCK_CELLS = 2**21  # swaps drawn per block (rows x units): 16 MB of int64
NO_TEST_UNITS = "no unit to compare (n = 0), so there is no test"
GRADED_ITEMS = "an item is partly right (its passage's LAS), not right or wrong, so there is no McNemar test"


def randomization_p_value(subtask: Subtask, rows_a: list[tuple[int, ...]], rows_b: list[tuple[int, ...]],
                          rounds: int, seed: int) -> float:
    """The paired approximate-randomization p-value of the main metric of A minus B over the
    units whose count rows are ``rows_a`` and ``rows_b`` (in unit order, at least one)."""
    import numpy as np

    n_units, width = len(rows_a), len(subtask.count_names)
    totals_a, totals_b = column_totals(rows_a, width), column_totals(rows_b, width)
    observed = abs(subtask.combine(totals_a, n_units)["score"] - subtask.combine(totals_b, n_units)["score"])
    moved_by_swap = as_table(rows_b, width) - as_table(rows_a, width)  # what one swap moves to A's side
    generator = np.random.default_rng(seed)
    block = max(1, BLOCK_CELLS // n_units)
    extreme = 0
    for start in range(0, rounds, block):
        swaps = generator.integers(0, 2, size=(min(block, rounds - start), n_units)).astype(np.float32)
        for moved in resampled_totals(moved_by_swap, swaps):
            side_a = tuple(total + change for total, change in zip(totals_a, moved))
            side_b = tuple(total - change for total, change in zip(totals_b, moved))
            difference = subtask.combine(side_a, n_units)["score"] - subtask.combine(side_b, n_units)["score"]
            extreme += abs(difference) >= observed - TOLERANCE
    return (1 + extreme) / (rounds + 1)


def mcnemar_p(a_only: int, b_only: int) -> float:
    """The exact two-sided McNemar p-value of b = ``a_only`` and c = ``b_only``, in integer
    arithmetic: 2 * sum_{k <= min(b, c)} C(b + c, k) / 2^(b + c), correctly rounded, at most 1."""
    discordant = a_only + b_only
    if not discordant:
        return 1.0
    tail, term = 0, 1  # term = C(discordant, k)
    for k in range(min(a_only, b_only) + 1):
        tail += term
        term = term * (discordant - k) // (k + 1)
    return min(1.0, 2 * tail / 2**discordant)


def item_correct(subtask: Subtask, rows: list[tuple[int, ...]]) -> list[bool]:
    """Whether each unit (its count row) is right: the subtask's per-item correctness."""
    known: dict[tuple[int, ...], bool] = {}
    for row in rows:
        if row not in known:
            known[row] = subtask.combine(row, 1)[subtask.item_figure] == 1.0
    return [known[row] for row in rows]


def discordant_units(subtask: Subtask, rows_a: list[tuple[int, ...]], rows_b: list[tuple[int, ...]]) -> tuple[int, int]:
    """(b, c): the units A gets right and B does not, and the reverse."""
    pairs = list(zip(item_correct(subtask, rows_a), item_correct(subtask, rows_b)))
    return sum(a and not b for a, b in pairs), sum(b and not a for a, b in pairs)


def paired_tests(subtask: Subtask, rows_a: list[tuple[int, ...]], rows_b: list[tuple[int, ...]],
                 rounds: int, seed: int) -> dict:
    """What ``compare --test-rounds`` adds: ``test_rounds``, ``p_value``, ``mcnemar_p``,
    ``n_a_only``, ``n_b_only`` (and ``mcnemar_figure``, the per-item figure McNemar tests),
    with ``reasons`` for the null ones."""
    keys = ("p_value", "mcnemar_p", "n_a_only", "n_b_only")
    tests: dict = {"test_rounds": rounds, "mcnemar_figure": None if subtask.graded_items else subtask.item_figure}
    if not rows_a:
        return tests | {key: None for key in keys} | {"reasons": dict.fromkeys(keys, NO_TEST_UNITS)}
    tests["p_value"] = randomization_p_value(subtask, rows_a, rows_b, rounds, seed)
    if subtask.graded_items:
        return tests | {key: None for key in keys[1:]} | {"reasons": dict.fromkeys(keys[1:], GRADED_ITEMS)}
    a_only, b_only = discordant_units(subtask, rows_a, rows_b)
    return tests | {"mcnemar_p": mcnemar_p(a_only, b_only), "n_a_only": a_only, "n_b_only": b_only}


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: for p_(1) <= ... <= p_(m),
    adjusted p_(i) = max over j <= i of min(1, (m - j + 1) p_(j))."""
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(sorted(range(len(p_values)), key=lambda index: p_values[index])):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
