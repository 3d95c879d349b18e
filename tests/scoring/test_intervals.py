"""Bootstrap intervals of `score --ci` and `compare`, against the definitions written out
directly (each resample scored by metric() on the lines it picks) and scipy's bootstrap."""

import json

import numpy as np
import pytest
from scipy import stats

from scoring.breakdown import breakdown
from scoring.evaluate import Counted, compare_files, compare_records, score_files, score_records
from scoring.intervals import (
    NO_UNITS,
    resample_counts,
    resample_indices,
    resampled_figures,
    resampled_scores_together,
    resampled_totals,
    units,
)
from scoring.metrics import as_table, count_table
from scoring.subtasks import SUBTASKS
from tests.scoring.test_cli import DATA, GOLD_FILE, read_jsonl, run, write_jsonl


def gold_records(key):
    return read_jsonl(DATA / key / GOLD_FILE[key])


def jsonl_bytes(records):
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()


def as_prediction(key, record):
    """A gold record as a correct submission line (numerals gold lists every accepted answer)."""
    if key == "numerals":
        return {"id": record["id"], "answer": record["answers"][0]}
    return json.loads(json.dumps(record))


def correct(key, gold):
    return [as_prediction(key, record) for record in gold]


def degraded(key, gold, keep_every=3, drop_every=5):
    """Gold as predictions, every ``drop_every``-th line left out and, for discourse, every
    ``keep_every``-th passage's relations changed (so LAS differs from UAS)."""
    predictions = []
    for number, record in enumerate(gold):
        if number % drop_every == 0:
            continue
        record = as_prediction(key, record)
        if key == "discourse" and number % keep_every == 0:
            for unit in record["discourse_units"][1:]:
                unit["relation"] = "Comment" if unit["relation"] != "Comment" else "Cause"
        predictions.append(record)
    return predictions


def bounds_by_definition(key, gold, pred_records, resamples, seed, figure="score", only_answered=False):
    """The definition, literally: units sorted by id, one index matrix, metric() per row."""
    subtask = SUBTASKS[key]
    pred = {record["id"]: record for record in pred_records}
    lines = sorted(gold, key=lambda record: record["id"])
    if only_answered:
        lines = [record for record in lines if record["id"] in pred]
    indices = np.random.default_rng(seed).integers(0, len(lines), size=(resamples, len(lines)))
    scores = [subtask.metric([lines[i] for i in row], pred)[figure] for row in indices]
    return np.percentile(scores, [2.5, 97.5])


def scored(key, gold, pred_records, **options):
    result = score_files(key, jsonl_bytes(gold), "gold.jsonl", jsonl_bytes(pred_records), "pred.jsonl", **options)
    assert not result.errors, result.errors
    return result.metrics


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_bounds_equal_the_definition(key):
    gold = gold_records(key)
    predictions = degraded(key, gold)
    metrics = scored(key, gold, predictions, resamples=200, seed=7)
    figures = ["score", *SUBTASKS[key].interval_figures]
    for figure in figures:
        low, high = bounds_by_definition(key, gold, predictions, 200, 7, figure)
        prefix = "" if figure == "score" else f"{figure}_"
        assert metrics[f"{prefix}ci_low"] == pytest.approx(low, abs=1e-12)
        assert metrics[f"{prefix}ci_high"] == pytest.approx(high, abs=1e-12)
    assert metrics["ci_low"] <= metrics["score"] <= metrics["ci_high"]


def test_discourse_reports_an_interval_for_each_figure():
    key = "discourse"
    metrics = scored(key, gold_records(key), degraded(key, gold_records(key)), resamples=50)
    for figure in ("las", "uas", "root_accuracy", "tree_validity"):
        assert metrics[f"{figure}_ci_low"] <= metrics[figure] <= metrics[f"{figure}_ci_high"]
    assert metrics["las_ci_high"] < metrics["uas_ci_high"]


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_the_identity_resample_gives_metric(key):
    subtask = SUBTASKS[key]
    gold = gold_records(key)
    pred = {record["id"]: record for record in degraded(key, gold)}
    every_line_once = np.ones((1, len(gold)), dtype=np.int32)
    table = count_table(subtask, units(gold), pred)
    assert resampled_figures(subtask, table, every_line_once) == [subtask.metric(gold, pred)]


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_all_correct_gives_one_one(key):
    gold = gold_records(key)
    metrics = scored(key, gold, correct(key, gold), resamples=100)
    assert (metrics["ci_low"], metrics["ci_high"]) == (1.0, 1.0)


def test_numerals_matches_scipy_bootstrap_percentile_with_the_same_resamples():
    """Exact match is a mean of per-line 0/1: scipy's bootstrap draws the same index matrix
    from the same generator (rng.integers(0, n, (N, n))) when given the sorted lines."""
    key = "numerals"
    gold = gold_records(key)
    predictions = degraded(key, gold, drop_every=3)
    pred = {record["id"]: record for record in predictions}
    correct = np.array([SUBTASKS[key].line_counts(record, pred.get(record["id"]))[0] for record in units(gold)], dtype=float)
    reference = stats.bootstrap((correct,), np.mean, n_resamples=500, method="percentile", vectorized=True,
                                batch=None, rng=np.random.default_rng(11)).confidence_interval
    metrics = scored(key, gold, predictions, resamples=500, seed=11)
    assert metrics["ci_low"] == pytest.approx(reference.low, abs=1e-9)
    assert metrics["ci_high"] == pytest.approx(reference.high, abs=1e-9)


def test_las_matches_scipy_paired_bootstrap_of_a_ratio():
    key = "discourse"
    gold = gold_records(key)
    predictions = degraded(key, gold)
    pred = {record["id"]: record for record in predictions}
    rows = np.array([SUBTASKS[key].line_counts(record, pred.get(record["id"])) for record in units(gold)], dtype=float)
    labelled, attachments = rows[:, 0], rows[:, 2]

    def las(labelled, attachments, axis=-1):
        return labelled.sum(axis=axis) / attachments.sum(axis=axis)

    reference = stats.bootstrap((labelled, attachments), las, paired=True, n_resamples=300, method="percentile",
                                vectorized=True, batch=None, rng=np.random.default_rng(3)).confidence_interval
    metrics = scored(key, gold, predictions, resamples=300, seed=3)
    assert metrics["las_ci_low"] == pytest.approx(reference.low, abs=1e-9)
    assert metrics["las_ci_high"] == pytest.approx(reference.high, abs=1e-9)


def test_seeds_reproduce_and_differ():
    key = "commas"
    gold = gold_records(key)
    predictions = degraded(key, gold, drop_every=4)
    first, again, other = (scored(key, gold, predictions, resamples=300, seed=seed) for seed in (5, 5, 6))
    assert (first["ci_low"], first["ci_high"]) == (again["ci_low"], again["ci_high"])
    assert (first["ci_low"], first["ci_high"]) != (other["ci_low"], other["ci_high"])


def test_only_answered_resamples_the_answered_lines_including_faulty_ones():
    key = "wsd"
    gold = gold_records(key)
    predictions = degraded(key, gold, drop_every=2)
    predictions[0] = {**predictions[0], "answer": "Z"}  # answered, though not valid: still a unit
    metrics = scored(key, gold, predictions, only_answered=True, resamples=200, seed=1)
    low, high = bounds_by_definition(key, gold, predictions, 200, 1, only_answered=True)
    assert (metrics["ci_low"], metrics["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert metrics["n_gold"] == len(predictions)


def test_no_units_gives_null_bounds_with_reasons():
    key = "discourse"
    metrics = scored(key, gold_records(key), [], only_answered=True, resamples=100)
    keys = ["ci_low", "ci_high"] + [f"{figure}_ci_{side}" for figure in SUBTASKS[key].interval_figures for side in ("low", "high")]
    assert all(metrics[bound] is None for bound in keys)
    assert metrics["reasons"] == {bound: NO_UNITS for bound in keys}


def test_compare_pairs_one_index_matrix():
    key = "morphosyntax"
    gold = gold_records(key)
    a, b = degraded(key, gold, drop_every=3), degraded(key, gold, drop_every=4)
    result = compare_files(key, jsonl_bytes(gold), "gold.jsonl", (jsonl_bytes(a), "a.jsonl"), (jsonl_bytes(b), "b.jsonl"),
                           resamples=400, seed=2).metrics
    subtask = SUBTASKS[key]
    by_id = [{record["id"]: record for record in records} for records in (a, b)]
    assert result["score_a"] == subtask.metric(gold, by_id[0])["score"]
    assert result["score_b"] == subtask.metric(gold, by_id[1])["score"]
    assert result["diff"] == result["score_a"] - result["score_b"]
    lines = sorted(gold, key=lambda record: record["id"])
    indices = np.random.default_rng(2).integers(0, len(lines), size=(400, len(lines)))
    diffs = [subtask.metric([lines[i] for i in row], by_id[0])["score"] - subtask.metric([lines[i] for i in row], by_id[1])["score"]
             for row in indices]
    low, high = np.percentile(diffs, [2.5, 97.5])
    assert (result["diff_ci_low"], result["diff_ci_high"]) == pytest.approx((low, high), abs=1e-12)


def test_compare_only_answered_scores_both_on_what_a_answers():
    key = "numerals"
    gold = gold_records(key)
    a, b = degraded(key, gold, drop_every=2), correct(key, gold)
    result = compare_files(key, jsonl_bytes(gold), "g.jsonl", (jsonl_bytes(a), "a.jsonl"), (jsonl_bytes(b), "b.jsonl"),
                           only_answered=True).metrics
    assert (result["score_a"], result["score_b"], result["diff"], result["n_gold"]) == (1.0, 1.0, 0.0, len(a))
    assert "diff_ci_low" not in result


def test_cli_score_and_compare(tmp_path):
    key = "commas"
    gold_path = DATA / key / GOLD_FILE[key]
    gold = gold_records(key)
    pred = write_jsonl(tmp_path / "pred.jsonl", degraded(key, gold))
    plain = run("score", key, "--gold", gold_path, "--pred", pred, "--json")
    assert "ci_low" not in json.loads(plain.stdout)
    with_ci = run("score", key, "--gold", gold_path, "--pred", pred, "--json", "--ci", 100, "--seed", 4)
    metrics = json.loads(with_ci.stdout)
    assert (metrics["ci_low"], metrics["ci_high"]) == pytest.approx(tuple(bounds_by_definition(key, gold, degraded(key, gold), 100, 4)), abs=1e-12)
    assert json.loads(plain.stdout) == {name: value for name, value in metrics.items() if "ci_" not in name}
    compared = run("compare", key, "--gold", gold_path, "--pred", pred, "--pred", gold_path, "--json", "--ci", 50)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert json.loads(compared.stdout)["score_b"] == 1.0
    assert run("compare", key, "--gold", gold_path, "--pred", pred).returncode == 2
    assert run("score", key, "--gold", gold_path, "--pred", pred, "--ci", -1).returncode == 2


def test_synthetic_gold_warns_on_stderr(tmp_path):
    key = "discourse"
    synthetic = DATA / key / "dev.SYNTHETIC-gold.jsonl"
    for command in (["score", key, "--gold", synthetic, "--pred", synthetic],
                    ["compare", key, "--gold", synthetic, "--pred", synthetic, "--pred", synthetic]):
        result = run(*command, "--json")
        assert result.returncode == 0
        assert "SYNTHETIC" in result.stderr and "warning" in result.stderr
        json.loads(result.stdout)
    real = write_jsonl(tmp_path / "gold.jsonl", gold_records(key))
    assert run("score", key, "--gold", real, "--pred", real).stderr == ""


@pytest.mark.parametrize("largest", [7, 2**23 + 1])  # float32 holds the sums exactly / it could not
def test_resampled_totals_are_the_exact_sums_of_the_picked_lines(largest):
    rng = np.random.default_rng(5)
    table = rng.integers(0, largest + 1, size=(40, 3))
    table[0, 0] = largest
    indices = resample_indices(40, 60, 9)
    expected = [tuple(int(value) for value in table[row].sum(axis=0)) for row in indices]
    assert resampled_totals(table, resample_counts(40, 60, 9)) == expected


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_predictions_counted_once_give_what_counting_each_time_gives(key):
    """A report counts each source's lines once (over all the gold it is scored on, in gold
    order) and scores, compares and breaks down from those rows and their resampled figures:
    the figures are those of counting each time."""
    subtask = SUBTASKS[key]
    gold = gold_records(key)
    pred_a = {record["id"]: record for record in degraded(key, gold, drop_every=3)}
    pred_b = {record["id"]: record for record in degraded(key, gold, drop_every=4)}
    counted_a, counted_b = Counted(subtask, gold, pred_a), Counted(subtask, gold, pred_b)
    for only_answered in (False, True):
        for _ in range(2):  # the second time from the resampled figures kept
            assert score_records(subtask, gold, pred_a, 0, only_answered, 100, 3, counted_a) == \
                score_records(subtask, gold, pred_a, 0, only_answered, 100, 3)
            assert compare_records(subtask, gold, pred_a, pred_b, only_answered, 100, 3, (counted_a, counted_b)) == \
                compare_records(subtask, gold, pred_a, pred_b, only_answered, 100, 3)
    assert breakdown(key, gold, pred_a, counted_a.rows_by_id) == breakdown(key, gold, pred_a)


@pytest.mark.parametrize("largest", [3, 2**22])  # the float32 product, then the int64 one
def test_resampled_together_are_the_figures_of_each_alone(largest):
    subtask = SUBTASKS["commas"]
    generator = np.random.default_rng(4)
    row_sets = [[tuple(int(value) for value in generator.integers(0, high, size=len(subtask.count_names)))
                 for _ in range(50)] for high in (2, largest, 5)]
    together = resampled_scores_together(subtask, row_sets, 30, 9)
    alone = [resampled_figures(subtask, as_table(rows, len(subtask.count_names)), resample_counts(50, 30, 9))
             for rows in row_sets]
    assert together == alone
    assert resampled_scores_together(subtask, [[], []], 30, 9) == [[], []]
