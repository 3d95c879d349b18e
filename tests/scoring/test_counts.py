"""The metrics as per-line integer counts: any resampling of lines sums the same count rows
and combines them with the same function, giving what the metric gives on those lines."""

import json
import random
from pathlib import Path

import pytest

from scoring.metrics import column_totals, count_table
from scoring.subtasks import SUBTASKS, get_subtask

DATA = Path(__file__).resolve().parents[2] / "demo" / "data"


def gold_records(key):
    name = "dev.SYNTHETIC-gold.jsonl" if key == "discourse" else "dev.gold.jsonl"
    return [json.loads(line) for line in (DATA / key / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def predictions(key, gold, rng):
    """Gold answers, some left out and some replaced by another line's answer."""
    pred = {}
    for record in gold:
        roll = rng.random()
        if roll < 0.15:
            continue
        source = rng.choice(gold) if roll < 0.5 else record
        answer = {name: value for name, value in source.items() if name != "id"}
        if key == "numerals":
            answer = {"answer": source["answers"][0]}
        pred[record["id"]] = {"id": record["id"], **answer}
    return pred


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_a_resample_of_count_rows_gives_the_metric_of_the_resampled_lines(key):
    subtask = get_subtask(key)
    rng = random.Random(key)
    gold = gold_records(key)
    pred = predictions(key, gold, rng)
    table = count_table(subtask, gold, pred)
    assert table.shape == (len(gold), len(subtask.count_names))
    assert subtask.combine(column_totals(table, table.shape[1]), len(gold)) == subtask.metric(gold, pred)
    for _ in range(5):
        rows = [rng.randrange(len(gold)) for _ in gold]
        resampled = subtask.combine(column_totals(table[rows], table.shape[1]), len(rows))
        assert resampled == subtask.metric([gold[row] for row in rows], pred)


def test_counts_are_integers_and_figures_plain_numbers():
    subtask = get_subtask("commas")
    gold = gold_records("commas")
    figures = subtask.metric(gold, {})
    assert all(type(value) in (int, float) for value in figures.values())
    assert all(type(count) is int for count in subtask.line_counts(gold[0], None))


def test_answers_of_any_json_shape_are_scored_as_wrong_without_raising():
    wsd = get_subtask("wsd").metric([{"id": "a", "answer": "A"}], {"a": {"id": "a", "answer": ["A"]}})
    assert (wsd["accuracy"], wsd["n_invalid"]) == (0.0, 1)
    gold = [{"id": "p", "discourse_units": [{"du_id": "1", "head": None, "relation": None},
                                            {"du_id": "2", "head": "1", "relation": "Cause"}]}]
    units = [{"du_id": {"x": 1}, "head": None, "relation": None}, {"du_id": "2", "head": "1", "relation": ["Cause"]}]
    discourse = get_subtask("discourse").metric(gold, {"p": {"id": "p", "discourse_units": units}})
    assert (discourse["uas"], discourse["las"], discourse["tree_validity"]) == (1.0, 0.0, 0.0)
