"""python -m scoring sample: hand-worked draws, and a redraw by the definition on the demo data."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from scoring.sampling import SampleTooLarge, Stratum, allocation, draw_sample

ROOT = Path(__file__).resolve().parents[2]
COMMAS = ROOT / "demo" / "data" / "commas" / "dev.inputs.jsonl"

# Five records; default_rng(7).permutation(5) is [2, 0, 4, 1, 3], so the ids a..e in string
# order are permuted to c a e b d.
RECORDS = [{"id": "b", "g": 1}, {"id": "a", "g": 2}, {"id": "c"}, {"id": "d", "g": 1}, {"id": "e", "g": 1}]


def run(*args):
    return subprocess.run([sys.executable, "-m", "scoring", "sample", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True)


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return path


def test_the_permutation_of_seed_7_by_hand():
    assert numpy.random.default_rng(7).permutation(5).tolist() == [2, 0, 4, 1, 3]
    drawn = draw_sample(RECORDS, 3, 7)
    assert drawn.order == ["c", "a", "e"]
    assert drawn.ids == ["a", "c", "e"]
    assert drawn.strata == []


def test_strata_with_remainders_ties_and_a_missing_field_as_null():
    # N = 5, n = 3: "1" has 3 items (floor 9/5 = 1, remainder 4), "2" and null 1 each (floor 0,
    # remainder 3). The two left go to "1" (largest remainder), then "2" (tie with "null": "2"
    # comes first in string order). In the order c a e b d: c is null's (share 0), a is "2"'s, e
    # and b are "1"'s.
    drawn = draw_sample(RECORDS, 3, 7, "g")
    assert drawn.strata == [Stratum("1", 3, 2), Stratum("2", 1, 1), Stratum("null", 1, 0)]
    assert drawn.order == ["a", "e", "b"]
    assert drawn.ids == ["a", "b", "e"]


def test_allocation_is_in_exact_integers():
    # 7 * 1 / 3 is 2.333... for each: 6 by floors, the one left to the first value in string order.
    assert allocation({"b": 1, "a": 1, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}
    assert allocation({"x": 3, "y": 3, "z": 3}, 7) == {"x": 3, "y": 2, "z": 2}
    assert allocation({"x": 10}, 0) == {"x": 0}


def test_canonical_json_makes_equal_objects_one_stratum():
    records = [{"id": "1", "k": {"b": 1, "a": "ł"}}, {"id": "2", "k": {"a": "ł", "b": 1}}, {"id": "3", "k": None}]
    drawn = draw_sample(records, 3, 0, "k")
    assert drawn.strata == [Stratum("null", 1, 1), Stratum('{"a": "ł", "b": 1}', 2, 2)]  # string order


def test_a_sample_larger_than_the_inputs_is_refused():
    with pytest.raises(SampleTooLarge):
        draw_sample(RECORDS, 6, 7)


def independent_redraw(records, n, seed, field=None):
    """The issue's definition, written again without the module's helpers."""
    ids = sorted(record["id"] for record in records)
    order = [ids[i] for i in numpy.random.default_rng(seed).permutation(len(ids))]
    if field is None:
        return sorted(order[:n])
    value = {r["id"]: json.dumps(r.get(field), sort_keys=True, ensure_ascii=False) for r in records}
    counts = {}
    for v in value.values():
        counts[v] = counts.get(v, 0) + 1
    total = len(ids)
    share = {v: math.floor(n * c / total) for v, c in counts.items()}
    rest = sorted(counts, key=lambda v: (-(n * counts[v] - share[v] * total), v))[:n - sum(share.values())]
    for v in rest:
        share[v] += 1
    picked = []
    for item_id in order:
        if share[value[item_id]] > 0:
            share[value[item_id]] -= 1
            picked.append(item_id)
    return sorted(picked)


@pytest.mark.parametrize(("size", "seed", "field"), [(0, 0, None), (7, 1, None), (13, 2026, "sentence_with_positions"),
                                                      (20, 5, "nothing_by_this_name"), (40, 3, None)])
def test_the_command_redraws_the_definition_on_the_demo_data(size, seed, field):
    records = [json.loads(line) for line in COMMAS.read_text(encoding="utf-8").splitlines() if line.strip()]
    size = min(size, len(records))
    result = run("--inputs", COMMAS, "--size", size, "--seed", seed, *(["--stratify", field] if field else []))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == independent_redraw(records, size, seed, field)


def test_the_command_on_hand_worked_cases_and_n_above_n(tmp_path):
    inputs = write_jsonl(tmp_path / "in.jsonl", RECORDS)
    assert run("--inputs", inputs, "--size", 3, "--seed", 7).stdout == "a\nc\ne\n"
    assert run("--inputs", inputs, "--size", 3, "--seed", 7, "--stratify", "g").stdout == "a\nb\ne\n"
    assert run("--inputs", inputs, "--size", 5, "--seed", 7).stdout == "a\nb\nc\nd\ne\n"
    too_many = run("--inputs", inputs, "--size", 6, "--seed", 7)
    assert (too_many.returncode, too_many.stdout) == (1, "")
    assert "--size 6 is more than its 5 items" in too_many.stderr


def test_bad_inputs_name_file_line_and_field(tmp_path):
    inputs = tmp_path / "in.jsonl"
    inputs.write_text('{"id": "a"}\n{"id": 3}\n{"id": "a"}\n', encoding="utf-8")
    result = run("--inputs", inputs, "--size", 1, "--seed", 0)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{inputs}:2: id: missing or not a string",
                                          f"{inputs}:3: id: duplicate id 'a' (first on line 1)"]
    assert run("--inputs", inputs, "--size", -1, "--seed", 0).returncode == 2
