"""Reliability statistics over value counts: how far several annotators agree.

The statistics take per-unit value counts (a mapping value -> how many answers gave it) and
never build a units x values matrix:

- Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"):
  units with fewer than two values are left out; from the coincidences of the others,
  alpha = 1 - D_o / D_e. ``nominal_alpha`` for delta = 0/1, ``alpha`` with any distance.
- observed agreement: the mean over units with two or more values of
  (ordered equal pairs) / (n (n - 1)).
- Fleiss' kappa over the units with the most frequent answer count.
- MASI distance between two sets.

A statistic that is not defined raises ``Undefined`` with the sentence saying why;
``Figures`` maps it to ``null`` and that sentence to ``reasons``. This module knows no
subtask: the subtask modules build their figures and majority rules from it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

ValueCounts = Mapping[Hashable, int]
# (left values, right values) -> the len(left) x len(right) matrix of distances.
BlockDistance = Callable[[Sequence, Sequence], np.ndarray]

NO_PAIRABLE_UNIT = "no unit has two values (no item has two valid answers)"
ONE_VALUE = "every value is the same, so no disagreement is expected (D_e = 0)"
NO_ITEM_WITH_TWO = "no item has two valid answers"

# Rows of a distance block computed at once: bounds the memory of ``alpha`` (8 bytes each).
_BLOCK_CELLS = 1 << 22


class Undefined(ValueError):
    """A statistic has no value on these data; ``str()`` is the sentence saying why."""


# Statistics ---------------------------------------------------------------------------------

def nominal_alpha(units: Iterable[ValueCounts]) -> float:
    """Krippendorff's alpha with delta = 0 for equal values, 1 otherwise.

    With n pairable values, o_cc = sum over units of n_uc (n_uc - 1) / (m_u - 1) and n_c
    the total of value c: alpha = 1 - (n - 1) (n - sum_c o_cc) / (n^2 - sum_c n_c^2),
    computed in exact fractions. A value counted 0 times is not there.
    """
    n = 0
    agreeing_by_m: dict[int, int] = defaultdict(int)  # m_u -> sum of n_uc (n_uc - 1)
    totals: dict[Hashable, int] = {}
    for counts in units:
        m = sum(counts.values())
        if m < 2:
            continue
        n += m
        agreeing = 0
        for value, count in counts.items():
            if count:
                agreeing += count * (count - 1)
                totals[value] = totals.get(value, 0) + count
        agreeing_by_m[m] += agreeing
    if n == 0:
        raise Undefined(NO_PAIRABLE_UNIT)
    if len(totals) < 2:
        raise Undefined(ONE_VALUE)
    agreeing = sum(Fraction(total, m - 1) for m, total in agreeing_by_m.items())
    expected = n * n - sum(total * total for total in totals.values())
    return float(1 - (n - 1) * (n - agreeing) / expected)


def alpha(units: Iterable[ValueCounts], distance: BlockDistance | None = None) -> float:
    """Krippendorff's alpha with ``distance`` (None: nominal).

    ``distance`` must be symmetric and 0 on equal values. The coincidences of distinct
    values c != k are o_ck = sum over units of n_uc n_uk / (m_u - 1); then
    alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck. Distances are taken
    block by block over the distinct values, never for all of them at once.
    """
    if distance is None:
        return nominal_alpha(units)
    index: dict[Hashable, int] = {}
    totals: list[int] = []
    coincidences: dict[tuple[int, int], float] = defaultdict(float)  # (i < j) -> o_ij
    by_m: dict[int, dict[tuple[int, int], int]] = defaultdict(lambda: defaultdict(int))
    n = 0
    for counts in units:
        m = sum(counts.values())
        if m < 2:
            continue
        n += m
        present = []
        for value, count in counts.items():
            position = index.setdefault(value, len(index))
            if position == len(totals):
                totals.append(0)
            totals[position] += count
            present.append((position, count))
        pairs = by_m[m]
        for first in range(len(present)):
            for second in range(first + 1, len(present)):
                (i, n_i), (j, n_j) = sorted((present[first], present[second]))
                pairs[(i, j)] += n_i * n_j
    if n == 0:
        raise Undefined(NO_PAIRABLE_UNIT)
    if len(totals) < 2:
        raise Undefined(ONE_VALUE)
    for m, pairs in by_m.items():
        for pair, weight in pairs.items():
            coincidences[pair] += weight / (m - 1)
    values = list(index)
    weights = np.asarray(totals, dtype=np.float64)
    pairs = sorted(coincidences)
    rows = np.fromiter((pair[0] for pair in pairs), dtype=np.int64, count=len(pairs))
    columns = np.fromiter((pair[1] for pair in pairs), dtype=np.int64, count=len(pairs))
    observed_weights = np.fromiter((float(coincidences[pair]) for pair in pairs), dtype=np.float64, count=len(pairs))
    observed = expected = 0.0
    step = max(1, _BLOCK_CELLS // len(values))
    for start in range(0, len(values), step):
        stop = min(start + step, len(values))
        block = distance(values[start:stop], values)
        expected += float(weights[start:stop] @ block @ weights)
        low, high = np.searchsorted(rows, [start, stop])
        observed += 2.0 * float(observed_weights[low:high] @ block[rows[low:high] - start, columns[low:high]])
    if expected == 0:
        raise Undefined(ONE_VALUE)
    return 1.0 - (n - 1) * observed / expected


def observed_agreement(units: Iterable[ValueCounts]) -> float:
    """The mean over units with two or more values of (ordered equal pairs) / (n (n - 1))."""
    equal_by_n: dict[int, int] = defaultdict(int)
    n_units = 0
    for counts in units:
        n = sum(counts.values())
        if n < 2:
            continue
        n_units += 1
        equal_by_n[n] += sum(count * (count - 1) for count in counts.values())
    if not n_units:
        raise Undefined(NO_ITEM_WITH_TWO)
    return float(sum(Fraction(equal, n * (n - 1)) for n, equal in equal_by_n.items()) / n_units)


def fleiss_units(units: Iterable[ValueCounts]) -> list[ValueCounts]:
    """The units Fleiss' kappa is computed over: those whose number of values is m, the
    most frequent count among units with two or more values (a tie: the larger count)."""
    pairable = [counts for counts in units if sum(counts.values()) >= 2]
    if not pairable:
        return []
    frequency = Counter(sum(counts.values()) for counts in pairable)
    m = max(frequency, key=lambda count: (frequency[count], count))
    return [counts for counts in pairable if sum(counts.values()) == m]


def fleiss_kappa(units: Sequence[ValueCounts], categories: Sequence[Hashable]) -> float:
    """Fleiss' kappa over ``units`` that all have the same number m of values:
    (P - P_e) / (1 - P_e), P the mean of (sum_j n_ij^2 - m) / (m (m - 1)), P_e = sum_j p_j^2."""
    if len(units) < 2:
        raise Undefined("fewer than 2 items have the most frequent number of answers")
    m = sum(units[0].values())
    if any(sum(counts.values()) != m for counts in units):
        raise ValueError("every unit of Fleiss' kappa needs the same number of values")
    column = {category: 0 for category in categories}
    squares = 0
    for counts in units:
        for value, count in counts.items():
            column[value] += count
            squares += count * count
    n_values = len(units) * m
    p_e = Fraction(sum(total * total for total in column.values()), n_values * n_values)
    if p_e == 1:
        raise Undefined("every answer is the same category, so P_e = 1")
    p_bar = Fraction(squares - n_values, n_values * (m - 1))
    return float((p_bar - p_e) / (1 - p_e))


def masi_distance(first: frozenset, second: frozenset) -> float:
    """1 - J M: J = |A & B| / |A | B| (1 when both are empty); M = 1 when A = B, 2/3 when one
    is a proper subset of the other, 1/3 when they intersect otherwise, 0 when disjoint."""
    union = len(first | second)
    overlap = len(first & second)
    jaccard = Fraction(overlap, union) if union else Fraction(1)
    if first == second:
        monotonicity = Fraction(1)
    elif first <= second or second <= first:
        monotonicity = Fraction(2, 3)
    elif overlap:
        monotonicity = Fraction(1, 3)
    else:
        monotonicity = Fraction(0)
    return float(1 - jaccard * monotonicity)


def masi_distances(left: Sequence[frozenset], right: Sequence[frozenset]) -> np.ndarray:
    """``masi_distance`` for every pair (left[i], right[j]), as one matrix (a ``BlockDistance``)."""
    members = sorted(set().union(*left, *right))
    column = {member: position for position, member in enumerate(members)}

    def incidence(sets: Sequence[frozenset]) -> np.ndarray:
        matrix = np.zeros((len(sets), len(members)), dtype=np.float64)
        for row, members_of in enumerate(sets):
            matrix[row, [column[member] for member in members_of]] = 1.0
        return matrix

    left_sizes = np.fromiter(map(len, left), dtype=np.float64, count=len(left))[:, None]
    right_sizes = np.fromiter(map(len, right), dtype=np.float64, count=len(right))[None, :]
    overlap = incidence(left) @ incidence(right).T
    union = left_sizes + right_sizes - overlap
    jaccard = np.divide(overlap, union, out=np.ones_like(overlap), where=union > 0)
    equal = (overlap == left_sizes) & (overlap == right_sizes)
    nested = overlap == np.minimum(left_sizes, right_sizes)
    monotonicity = np.select([equal, nested, overlap > 0], [1.0, 2.0 / 3.0, 1.0 / 3.0], 0.0)
    return 1.0 - jaccard * monotonicity


# Answers of several files -------------------------------------------------------------------

@dataclass(frozen=True)
class AnswerTable:
    """The valid, normalised answers of several files to one inputs file.

    ``items``: the input records in input order; ``files``: per file, id -> answer fields.
    """

    items: list[dict]
    files: list[dict[str, dict]]

    def answers_of(self, item_id: str) -> list[dict]:
        """The item's valid answers, in file order."""
        return [answers[item_id] for answers in self.files if item_id in answers]

    @cached_property
    def answered(self) -> list[tuple[dict, list[dict]]]:
        """(item, its valid answers) for every item with at least two valid answers, in input order."""
        found = []
        for item in self.items:
            answers = self.answers_of(item["id"])
            if len(answers) >= 2:
                found.append((item, answers))
        return found


# Figures and majorities ---------------------------------------------------------------------

class Figures:
    """Figures in the order they are added; a figure that is ``Undefined`` is null with its reason."""

    def __init__(self, table: AnswerTable):
        answered = table.answered
        self.values: dict[str, object] = {
            "n_items": len(answered),
            "n_answers": sum(len(answers) for _, answers in answered),
        }
        self.reasons: dict[str, str] = {}

    def add(self, key: str, compute: Callable[[], float | int | None]) -> None:
        try:
            self.values[key] = compute()
        except Undefined as why:
            self.values[key] = None
            self.reasons[key] = str(why)

    def result(self) -> dict:
        return {**self.values, "reasons": self.reasons}


def strict_majority(values: Sequence[Hashable]) -> Hashable | None:
    """The value given by more than half of ``values``, or None."""
    value, count = Counter(values).most_common(1)[0]
    return value if 2 * count > len(values) else None


def majority_by_value(answers: Sequence[dict], value: Callable[[dict], Hashable]) -> tuple[dict | None, str | None]:
    """(the answer more than half of ``answers`` share by ``value``, None), or (None, "no majority")."""
    values = [value(answer) for answer in answers]
    winner = strict_majority(values)
    if winner is None:
        return None, "no majority"
    return dict(answers[values.index(winner)]), None
