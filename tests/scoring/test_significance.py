"""Significance and annotators as a group: `compare --test-rounds`, `--items`, `annotators`,
`holm`, against the definitions written out directly and statsmodels."""

import json

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar
from statsmodels.stats.multitest import multipletests

from scoring.annotators import group_figures
from scoring.evaluate import compare_files, score_files
from scoring.significance import GRADED_ITEMS, NO_TEST_UNITS, holm, mcnemar_p
from scoring.subtasks import SUBTASKS
from tests.scoring.test_cli import DATA, GOLD_FILE, run, write_jsonl
from tests.scoring.test_intervals import correct, degraded, gold_records, jsonl_bytes


def compared(key, gold, a, b, **options):
    result = compare_files(key, jsonl_bytes(gold), "g.jsonl", (jsonl_bytes(a), "a.jsonl"), (jsonl_bytes(b), "b.jsonl"),
                           **options)
    assert not result.errors, result.errors
    return result.metrics


def p_value_by_definition(key, lines, pred_a, pred_b, rounds, seed):
    """The definition, literally: one swap matrix; in each round the answers of the swapped
    units exchanged; the metric of each side on all units."""
    subtask = SUBTASKS[key]
    observed = subtask.metric(lines, pred_a)["score"] - subtask.metric(lines, pred_b)["score"]
    swaps = np.random.default_rng(seed).integers(0, 2, size=(rounds, len(lines)))
    count = 0
    for row in swaps:
        side_a, side_b = {}, {}
        for record, swapped in zip(lines, row):
            first, second = (pred_b, pred_a) if swapped else (pred_a, pred_b)
            for side, source in ((side_a, first), (side_b, second)):
                if record["id"] in source:
                    side[record["id"]] = source[record["id"]]
        difference = subtask.metric(lines, side_a)["score"] - subtask.metric(lines, side_b)["score"]
        count += abs(difference) >= abs(observed) - 1e-9
    return (1 + count) / (rounds + 1)


@pytest.mark.parametrize("key", list(SUBTASKS))
def test_p_value_and_mcnemar_equal_the_definitions(key):
    gold = gold_records(key)
    a, b = degraded(key, gold, drop_every=3), degraded(key, gold, keep_every=2, drop_every=4)
    metrics = compared(key, gold, a, b, test_rounds=300, seed=7)
    lines = sorted(gold, key=lambda record: record["id"])
    pred_a, pred_b = ({record["id"]: record for record in records} for records in (a, b))
    assert metrics["test_rounds"] == 300
    assert metrics["p_value"] == pytest.approx(p_value_by_definition(key, lines, pred_a, pred_b, 300, 7), abs=1e-12)
    subtask = SUBTASKS[key]
    if key == "discourse":
        assert (metrics["mcnemar_p"], metrics["n_a_only"], metrics["n_b_only"]) == (None, None, None)
        assert metrics["reasons"]["mcnemar_p"] == GRADED_ITEMS
        return
    right = [[subtask.correctness(record, pred.get(record["id"])) == 1.0 for record in lines] for pred in (pred_a, pred_b)]
    b_count = sum(x and not y for x, y in zip(*right))
    c_count = sum(y and not x for x, y in zip(*right))
    assert (metrics["n_a_only"], metrics["n_b_only"]) == (b_count, c_count)
    reference = statsmodels_mcnemar([[0, b_count], [c_count, 0]], exact=True).pvalue if b_count + c_count else 1.0
    assert metrics["mcnemar_p"] == pytest.approx(reference, abs=1e-12)
    assert metrics["mcnemar_figure"] == subtask.item_figure


@pytest.mark.parametrize("key", list(SUBTASKS))
def test_identical_submissions_give_one(key):
    gold = gold_records(key)
    a = degraded(key, gold)
    metrics = compared(key, gold, a, a, test_rounds=50)
    assert metrics["p_value"] == 1.0
    if key != "discourse":
        assert (metrics["mcnemar_p"], metrics["n_a_only"], metrics["n_b_only"]) == (1.0, 0, 0)


def test_every_unit_favouring_a_gives_the_smallest_p_value():
    gold = [{"id": f"n{number:02d}", "answers": [f"słowo {number}"]} for number in range(20)]
    a = [{"id": record["id"], "answer": record["answers"][0]} for record in gold]
    b = [{"id": record["id"], "answer": "inne"} for record in gold]
    swaps = np.random.default_rng(0).integers(0, 2, size=(200, 20))
    assert not any(row.min() == row.max() for row in swaps)  # no round swaps all units or none
    metrics = compared("numerals", gold, a, b, test_rounds=200, seed=0)
    assert metrics["p_value"] == 1 / 201
    assert (metrics["n_a_only"], metrics["n_b_only"]) == (20, 0)
    assert metrics["mcnemar_p"] == pytest.approx(2 * 0.5**20, abs=1e-15)


def test_swaps_drawn_in_blocks_are_the_swap_matrix(monkeypatch):
    key = "commas"
    gold = gold_records(key)
    a, b = degraded(key, gold, drop_every=3), correct(key, gold)
    whole = compared(key, gold, a, b, test_rounds=97, seed=3)["p_value"]
    monkeypatch.setattr("scoring.significance.BLOCK_CELLS", len(gold) * 10)  # ten rows a block
    assert compared(key, gold, a, b, test_rounds=97, seed=3)["p_value"] == whole


@pytest.mark.parametrize(("b_count", "c_count"), [(0, 0), (1, 0), (3, 9), (10, 10), (40, 55), (700, 650), (5000, 4800)])
def test_mcnemar_equals_statsmodels(b_count, c_count):
    expected = statsmodels_mcnemar([[5, b_count], [c_count, 7]], exact=True).pvalue if b_count + c_count else 1.0
    assert mcnemar_p(b_count, c_count) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("p_values", [[0.01], [0.01, 0.04, 0.03, 0.5], [0.2, 0.2, 0.01, 0.9, 0.04, 0.04],
                                      list(np.random.default_rng(1).random(30))])
def test_holm_equals_statsmodels(p_values):
    expected = multipletests(p_values, method="holm")[1]
    assert holm(p_values) == pytest.approx(list(expected), abs=1e-15)
    printed = json.loads(run("holm", *p_values, "--json").stdout)
    assert printed["adjusted"] == pytest.approx(list(expected), abs=1e-15)


def test_holm_refuses_what_is_no_p_value():
    assert run("holm", "0.2", "1.5").returncode == 2
    assert run("holm", "x").returncode == 2


def test_no_unit_gives_null_tests_with_reasons(tmp_path):
    key = "wsd"
    gold = gold_records(key)
    metrics = compared(key, gold, [], correct(key, gold), only_answered=True, test_rounds=100)
    keys = ("p_value", "mcnemar_p", "n_a_only", "n_b_only")
    assert all(metrics[name] is None for name in keys)
    assert metrics["reasons"] == dict.fromkeys(keys, NO_TEST_UNITS)
    assert metrics["n_gold"] == 0 and metrics["score_a"] == 0.0


# --items

def items_run(tmp_path, command, key, content, *options):
    gold, pred = DATA / key / GOLD_FILE[key], DATA / key / "dev.gold.jsonl"
    items = tmp_path / "items.txt"
    items.write_bytes(content)
    preds = ["--pred", pred] if command == "score" else ["--pred", pred, "--pred", pred]
    return run(command, key, "--gold", gold, *preds, "--items", items, "--json", *options)


def test_items_score_exactly_the_listed_lines(tmp_path):
    key = "wsd"
    gold = gold_records(key)
    listed = [gold[4]["id"], gold[0]["id"], gold[2]["id"]]
    content = "\ufeff" + f"  {listed[0]} \r\n\r\n{listed[1]}\n\t\n{listed[2]}".replace("\n", "\r\n")
    partial = [record for record in correct(key, gold) if record["id"] != listed[1]]  # one listed item unanswered
    result = score_files(key, jsonl_bytes(gold), "g.jsonl", jsonl_bytes(partial), "p.jsonl",
                         items_file=(content.encode(), "items.txt")).metrics
    expected = SUBTASKS[key].metric([record for record in gold if record["id"] in listed],
                                    {record["id"]: record for record in partial})
    assert result["score"] == expected["score"]
    assert (result["n_gold"], result["n_missing"], result["n_gold_total"]) == (3, 1, len(gold))
    assert result["coverage"] == 3 / len(gold)
    listed_cli = items_run(tmp_path, "compare", key, content.encode(), "--test-rounds", 20)
    assert listed_cli.returncode == 0, listed_cli.stdout
    assert json.loads(listed_cli.stdout)["n_gold"] == 3


@pytest.mark.parametrize(("content", "expected"), [
    ("nope\n", "items.txt:1: id: 'nope' is not an id of the gold file"),
    ("{1}\n\n{0}\n{1}\n", "items.txt:4: id: duplicate id '{1}' (first on line 1)"),
    ("{0}\n\udcff\n", "items.txt:2: line: not valid UTF-8 (byte 1)"),
])
def test_items_faults_exit_1_naming_file_and_line(tmp_path, content, expected):
    ids = [record["id"] for record in gold_records("wsd")]
    for command in ("score", "compare"):
        result = items_run(tmp_path, command, "wsd", content.format(*ids).encode("utf-8", "surrogateescape"))
        assert result.returncode == 1
        assert expected.format(*ids) in result.stdout.replace(str(tmp_path) + "/", "")


def test_items_and_only_answered_exclude_each_other(tmp_path):
    assert items_run(tmp_path, "score", "wsd", b"\n", "--only-answered").returncode == 2


def test_an_empty_items_list_scores_nothing(tmp_path):
    result = items_run(tmp_path, "compare", "wsd", b"\n\n", "--test-rounds", 10, "--ci", 10)
    metrics = json.loads(result.stdout)
    assert (metrics["n_gold"], metrics["coverage"], metrics["p_value"], metrics["diff_ci_low"]) == (0, 0.0, None, None)
    assert set(metrics["reasons"]) >= {"p_value", "mcnemar_p", "diff_ci_low"}


# annotators

def numerals_gold(count):
    return [{"id": f"u{number}", "answers": [f"w{number}"]} for number in range(count)]


def answers(gold, right, wrong=()):
    return {**{f"u{n}": {"id": f"u{n}", "answer": f"w{n}"} for n in right},
            **{f"u{n}": {"id": f"u{n}", "answer": "zle"} for n in wrong}}


def test_two_way_bootstrap_on_a_case_worked_by_hand():
    """Two annotators, three units: X answers u0 (right) and u1 (wrong); Y answers u2 (right).
    The model is right on u1 only. With seed 0 and three resamples, numpy draws
    A = [[1, 1], [1, 0], [0, 0]] and U = [[0, 0, 0], [2, 1, 2], [1, 1, 2]]:
    resample 0 draws Y twice and u0 three times: Y answered none of them, so it is dropped;
    resample 1 draws Y (u2 twice: 1; the model 0: difference 1) and X (u1: 0; the model 1:
    difference -1): value 1/2, difference 0; resample 2 draws X twice (u1 twice: 0; the model 1):
    value 0, difference -1."""
    generator = np.random.default_rng(0)
    assert generator.integers(0, 2, size=(3, 2)).tolist() == [[1, 1], [1, 0], [0, 0]]
    assert generator.integers(0, 3, size=(3, 3)).tolist() == [[0, 0, 0], [2, 1, 2], [1, 1, 2]]
    gold = numerals_gold(3)
    files = [("x", answers(gold, [0], [1])), ("y", answers(gold, [2]))]
    figures = group_figures(SUBTASKS["numerals"], gold, files, answers(gold, [1], [0, 2]), resamples=3, seed=0)
    assert figures["per_file"] == {"x": 0.5, "y": 1.0}
    assert (figures["n_annotators"], figures["mean"], figures["median"], figures["min"], figures["max"]) == (2, 0.75, 0.75, 0.5, 1.0)
    assert figures["diff"] == ((0.5 - 0.5) + (1.0 - 0.0)) / 2
    assert figures["n_resamples_used"] == 2
    assert (figures["ci_low"], figures["ci_high"]) == pytest.approx((0.5 * 0.025, 0.5 * 0.975))
    assert (figures["diff_ci_low"], figures["diff_ci_high"]) == pytest.approx((-1 + 0.025, -1 + 0.975))


def two_way_by_definition(key, gold, files, model, resamples, seed):
    """The definition, literally, with the metric scored on the drawn lines of each file."""
    subtask = SUBTASKS[key]
    lines = sorted((record for record in gold if any(record["id"] in pred for pred in files)), key=lambda r: r["id"])
    generator = np.random.default_rng(seed)
    drawn_files = generator.integers(0, len(files), size=(resamples, len(files)))
    drawn_units = generator.integers(0, len(lines), size=(resamples, len(lines)))
    values, differences = [], []
    for file_row, unit_row in zip(drawn_files, drawn_units):
        scores, diffs = [], []
        for index in file_row:
            own = [lines[unit] for unit in unit_row if lines[unit]["id"] in files[index]]
            if own:
                scores.append(subtask.metric(own, files[index])["score"])
                diffs.append(scores[-1] - subtask.metric(own, model)["score"])
        if scores:
            values.append(np.mean(scores))
            differences.append(np.mean(diffs))
    return len(values), np.percentile(values, [2.5, 97.5]), np.percentile(differences, [2.5, 97.5])


@pytest.mark.parametrize("key", ["wsd", "commas", "discourse"])
def test_two_way_bootstrap_equals_the_definition(key):
    gold = gold_records(key)
    everything = correct(key, gold)
    files = [{record["id"]: record for record in degraded(key, gold, drop_every=every)[start::step]}
             for every, start, step in ((2, 0, 2), (3, 1, 3), (5, 0, 1))]
    files.append({})  # answers nothing: drawn, never kept
    model = {record["id"]: record for record in everything[::2]}
    figures = group_figures(SUBTASKS[key], gold, [(str(n), pred) for n, pred in enumerate(files)], model,
                            resamples=150, seed=5)
    used, bounds, diff_bounds = two_way_by_definition(key, gold, files, model, 150, 5)
    assert figures["n_resamples_used"] == used
    assert (figures["ci_low"], figures["ci_high"]) == pytest.approx(tuple(bounds), abs=1e-12)
    assert (figures["diff_ci_low"], figures["diff_ci_high"]) == pytest.approx(tuple(diff_bounds), abs=1e-12)
    assert figures["n_annotators"] == 3 and figures["per_file"]["3"] is None


def test_annotators_cli(tmp_path):
    key = "numerals"
    gold = numerals_gold(4)
    gold_path = write_jsonl(tmp_path / "g.jsonl", gold)
    x = write_jsonl(tmp_path / "x.jsonl", list(answers(gold, [0, 1]).values()))
    y = write_jsonl(tmp_path / "y.jsonl", list(answers(gold, [2], [3]).values()))
    empty = write_jsonl(tmp_path / "empty.jsonl", [])
    result = run("annotators", key, "--gold", gold_path, "--pred", x, y, empty, "--json", "--ci", 50)
    figures = json.loads(result.stdout)
    assert figures["per_file"] == {str(x): 1.0, str(y): 0.5, str(empty): None}
    assert (figures["n_annotators"], figures["mean"]) == (2, 0.75)
    assert figures["n_resamples_used"] <= 50 and figures["ci_low"] <= figures["ci_high"]
    assert run("annotators", key, "--gold", gold_path, "--pred", x, x).returncode == 2
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "u0", "answer": "w0"}\n{"id": "zz", "answer": "w"}\n', encoding="utf-8")
    faulty = run("annotators", key, "--gold", gold_path, "--pred", x, broken)
    assert faulty.returncode == 1 and f"{broken}:2: id: 'zz' is not an id of the gold file" in faulty.stdout


def test_no_answered_unit_gives_null_figures_with_reasons():
    gold = numerals_gold(3)
    figures = group_figures(SUBTASKS["numerals"], gold, [("x", {})], answers(gold, [0]), resamples=20)
    assert (figures["mean"], figures["diff"], figures["ci_low"], figures["n_resamples_used"]) == (None, None, None, 0)
    assert set(figures["reasons"]) == {"mean", "median", "min", "max", "diff", "ci_low", "ci_high", "diff_ci_low",
                                       "diff_ci_high"}
