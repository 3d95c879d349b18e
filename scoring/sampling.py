"""The seeded sample of a set of items, defined so that anyone can redraw it (scoring/README.md,
"Sample"): the N ids sorted in Python string order are permuted once by
``numpy.random.default_rng(seed).permutation(N)``; the sample is the permutation's first n ids,
or with a stratifying field each stratum's first n_s ids (largest-remainder allocation)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy

from scoring.jsonl import read_jsonl
from scoring.problems import Problem, problem
from scoring.validation import repeated_ids, sorted_by_line


class SampleTooLarge(ValueError):
    """A sample of n items asked of N < n."""


@dataclass(frozen=True)
class Stratum:
    """One stratum: its value as canonical JSON, how many items it has and how many it gives."""

    value: str
    size: int
    sample_size: int


@dataclass(frozen=True)
class Sample:
    """``ids`` in Python string order; ``order`` the sample in the permutation's order (the
    pilot is its first m); ``strata`` the allocation (empty without a stratifying field)."""

    ids: list[str]
    order: list[str]
    strata: list[Stratum]


def stratum_value(record: dict, field: str) -> str:
    """A record's stratum: its top-level ``field`` as canonical JSON, ``null`` when missing."""
    return json.dumps(record.get(field), sort_keys=True, ensure_ascii=False)


def permuted_ids(ids: list[str], seed: int) -> list[str]:
    """All ``ids`` in string order, permuted once by default_rng(seed).permutation(N)."""
    ordered = sorted(ids)
    return [ordered[index] for index in numpy.random.default_rng(seed).permutation(len(ordered))]


def allocation(sizes: dict[str, int], n: int) -> dict[str, int]:
    """n_s = floor(n * N_s / N) per stratum, and the n - sum(n_s) left one each to the strata of
    largest remainder n * N_s mod N (exact, in integers), ties by stratum value in string order."""
    total = sum(sizes.values())
    shares = {value: n * size // total for value, size in sizes.items()}
    left = n - sum(shares.values())
    by_remainder = sorted(sizes, key=lambda value: (-(n * sizes[value] % total), value))
    for value in by_remainder[:left]:
        shares[value] += 1
    return shares


def draw_sample(records: list[dict], n: int, seed: int, field: str | None = None) -> Sample:
    """The sample of ``n`` of ``records`` (each with a unique string ``id``); raises
    SampleTooLarge when n is larger than the number of records."""
    if n > len(records):
        raise SampleTooLarge(f"a sample of {n} asked of {len(records)} items")
    permutation = permuted_ids([record["id"] for record in records], seed)
    if field is None:
        order = permutation[:n]
        return Sample(sorted(order), order, [])
    stratum_of = {record["id"]: stratum_value(record, field) for record in records}
    sizes: dict[str, int] = {}
    for value in stratum_of.values():
        sizes[value] = sizes.get(value, 0) + 1
    shares = allocation(sizes, n) if records else {}
    taken = dict.fromkeys(shares, 0)
    order = []
    for item_id in permutation:
        value = stratum_of[item_id]
        if taken[value] < shares[value]:
            taken[value] += 1
            order.append(item_id)
    strata = [Stratum(value, sizes[value], shares[value]) for value in sorted(sizes)]
    return Sample(sorted(order), order, strata)


def read_sample_inputs(data: bytes, filename: str) -> tuple[list[dict], list[Problem]]:
    """The records of an inputs file for a sample: JSON Lines, each with a unique string id."""
    lines, problems = read_jsonl(data, filename)
    problems += [problem("no_id", "id", filename, line.number) for line in lines
                 if not isinstance(line.record.get("id"), str)]
    problems += repeated_ids(lines, filename, {})
    return [line.record for line in lines], sorted_by_line(problems)
