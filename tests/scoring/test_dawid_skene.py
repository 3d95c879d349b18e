"""scoring.dawid_skene against crowd-kit 1.4.2's DawidSkene (reference outputs made by
scripts/dawid_skene_reference.py, see README.md "Dawid–Skene"), the subtasks' classes, and
`python -m scoring dawid-skene`."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scoring.agreement import read_answers
from scoring.dawid_skene import EPSILON, NotOffered, answer_posteriors, dawid_skene_answers, fit
from scoring.reliability import AnswerTable
from scoring.subtasks import get_subtask
from tests.scoring.test_cli import run, write_jsonl

FIXTURES = Path(__file__).parent / "fixtures" / "dawid_skene"
CASES = sorted(path.stem for path in FIXTURES.glob("*.json"))
REAL = [case for case in CASES if case.startswith("real-")]
RATERS = ("rater1", "rater2", "rater3")


def reference(case: str) -> dict:
    return json.loads((FIXTURES / f"{case}.json").read_text(encoding="utf-8"))


def fit_rows(rows: list[list[str]], tasks: list[str]):
    task_index = {task: position for position, task in enumerate(tasks)}
    workers = sorted({worker for _task, worker, _label in rows})
    worker_index = {worker: position for position, worker in enumerate(workers)}
    model = fit([task_index[task] for task, _w, _l in rows], [worker_index[worker] for _t, worker, _l in rows],
                [label for _t, _w, label in rows], len(tasks), len(workers))
    return model, worker_index


def expected_label(ref: dict, position: int) -> str:
    """crowd-kit's label, but on a tie the first of the tied classes in sorted order (the
    issue's rule; crowd-kit's own tie order follows its pandas version's column order)."""
    if ref["tasks"][position] in ref["ties"]:
        row = ref["posteriors"][position]
        return ref["classes"][row.index(max(row))]
    return ref["labels"][position]


def test_the_fixtures_hold_random_real_and_tied_cases():
    assert {"ties", "random-four", "real-commas", "real-morphosyntax", "real-wsd", "real-coreference"} <= set(CASES)
    assert reference("ties")["ties"], "the tied case must hold ties"


@pytest.mark.parametrize("case", CASES)
def test_fit_equals_crowd_kit(case):
    ref = reference(case)
    model, worker_index = fit_rows(ref["rows"], ref["tasks"])
    assert list(model.classes) == ref["classes"]
    assert model.iterations == ref["iterations"]
    np.testing.assert_allclose(model.loss_history, ref["loss_history"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(model.posteriors, np.array(ref["posteriors"]), rtol=0, atol=1e-6)
    np.testing.assert_allclose(model.priors, ref["priors"], rtol=0, atol=1e-6)
    for worker, label, values in ref["errors"]:
        np.testing.assert_allclose(model.errors[worker_index[worker], model.classes.index(label)], values, atol=1e-6)
    chosen = [model.classes[index] for index in model.chosen]
    assert chosen == [expected_label(ref, position) for position in range(len(ref["tasks"]))]
    assert model.posteriors.min() >= EPSILON


def test_ties_go_to_the_first_class_in_sorted_order():
    ref = reference("ties")
    model, _workers = fit_rows(ref["rows"], ref["tasks"])
    tied = [ref["tasks"].index(task) for task in ref["ties"]]
    assert all(model.posteriors[position, 0] == model.posteriors[position, 1] for position in tied)
    assert {model.classes[model.chosen[position]] for position in tied} == {"A"}
    assert {ref["labels"][position] for position in tied} == {"B"}  # crowd-kit under pandas 3: by count


def read_real(case: str):
    folder = FIXTURES / case
    files = [(f"{rater}.jsonl", (folder / f"{rater}.jsonl").read_bytes()) for rater in RATERS]
    read = read_answers(case.removeprefix("real-"), (folder / "inputs.jsonl").read_bytes(), "inputs.jsonl", files)
    assert read.table is not None and not read.faults
    return read.table


@pytest.mark.parametrize("case", REAL)
def test_real_answers_through_the_subtask_equal_crowd_kit(case):
    key = case.removeprefix("real-")
    ref = reference(case)
    found = dawid_skene_answers(key, read_real(case), RATERS)
    by_task = {task: position for position, task in enumerate(ref["tasks"])}
    n_units = 0
    for item_id, posteriors in found.items.items():
        tasks = [f"{item_id}#{marker}" for marker in range(1, len(posteriors.units) + 1)] if key == "commas" else [item_id]
        for task, unit, chosen in zip(tasks, posteriors.units, posteriors.chosen, strict=True):
            row = ref["posteriors"][by_task[task]]
            assert [unit[value] for value in ref["classes"]] == pytest.approx(row, abs=1e-6)
            assert chosen == expected_label(ref, by_task[task])
            n_units += 1
    assert n_units == len(ref["tasks"])
    assert found.model.iterations == ref["iterations"]


def test_the_same_answers_give_the_same_bits():
    table = read_real("real-commas")
    first, second = dawid_skene_answers("commas", table, RATERS), dawid_skene_answers("commas", table, RATERS)
    assert first.answers == second.answers
    assert np.array_equal(first.model.posteriors, second.model.posteriors)
    assert first.figures() == second.figures()


def test_the_command_gives_the_same_file_whatever_the_hash_seed(tmp_path):
    folder = FIXTURES / "real-morphosyntax"
    outputs = []
    for seed in ("1", "2"):
        output = tmp_path / f"ds{seed}.jsonl"
        result = subprocess.run(
            [sys.executable, "-m", "scoring", "dawid-skene", "morphosyntax", "--inputs", folder / "inputs.jsonl",
             "--pred", *(folder / f"{rater}.jsonl" for rater in RATERS), "-o", output, "--json"],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=False)
        assert result.returncode == 0, result.stderr
        outputs.append((output.read_bytes(), json.loads(result.stdout) | {"output": None}, result.stderr))
    assert outputs[0] == outputs[1]


WSD_ITEM = {"reference_sentence": "[[TARGET]]zamek[[/TARGET]] a",
            "candidates": {label: f"{label} [[TARGET]]zamek[[/TARGET]]" for label in "ABCD"}}


def morphosyntax_table(answers_by_item: list[list[dict]]) -> AnswerTable:
    items = [{"id": f"m{number}", "sentence": "Ala ma kota."} for number in range(len(answers_by_item))]
    n_files = max(map(len, answers_by_item))
    files = [{f"m{number}": answers[position] for number, answers in enumerate(answers_by_item) if position < len(answers)}
             for position in range(n_files)]
    return AnswerTable(items, files)


CORRECT = {"answer": "POPRAWNE", "corrected_sentence": ""}


def incorrect(correction: str) -> dict:
    return {"answer": "NIEPOPRAWNE", "corrected_sentence": correction}


def test_morphosyntax_takes_the_majority_correction_of_the_answers_with_the_label():
    table = morphosyntax_table([
        [incorrect("Ala ma kot."), incorrect("Ala ma kot."), incorrect("Ala miała kota.")],
        [incorrect("X."), incorrect("Y."), CORRECT],  # NIEPOPRAWNE, no correction more than half of two give
        [CORRECT, CORRECT, incorrect("Z.")],
        [CORRECT],  # one answer
    ])
    found = dawid_skene_answers("morphosyntax", table, ["a", "b", "c"])
    assert found.items["m1"].chosen == ("NIEPOPRAWNE",)
    assert found.answers == {
        "m0": (incorrect("Ala ma kot."), None),
        "m1": (None, "no majority correction"),
        "m2": (CORRECT, None),
        "m3": (None, "one answer"),
    }
    candidates = found.items["m0"].candidates
    assert [candidate.classes for candidate in candidates] == [("NIEPOPRAWNE",)]
    assert candidates[0].answer == incorrect("Ala ma kot.")


def commas_table():
    item = {"id": "c1", "sentence_with_positions": "Ala [1] ma [2] kota [3] i psa."}
    answers = [{"commas": [1], "optional": [3]}, {"commas": [1, 2], "optional": []}, {"commas": [1], "optional": [3]}]
    return AnswerTable([item], [{"c1": answer} for answer in answers]), item


def test_commas_combines_the_markers_and_multiplies_their_posteriors():
    table, item = commas_table()
    found = dawid_skene_answers("commas", table, ["a", "b", "c"])
    posteriors = found.items["c1"]
    assert len(posteriors.units) == 3
    expected = tuple(max(sorted(unit), key=unit.get) for unit in posteriors.units)
    assert posteriors.chosen == expected
    answer, reason = found.answers["c1"]
    assert reason is None
    assert answer == {"commas": [marker for marker, value in enumerate(expected, 1) if value == "required"],
                      "optional": [marker for marker, value in enumerate(expected, 1) if value == "optional"]}
    by_classes = {candidate.classes: candidate for candidate in posteriors.candidates}
    given = ("required", "required", "none")
    assert by_classes[given].answer == {"commas": [1, 2], "optional": []}
    assert by_classes[given].posterior == pytest.approx(math.prod(unit[value] for unit, value in zip(posteriors.units, given)))
    assert posteriors.of_classes(given) == pytest.approx(by_classes[given].posterior)
    assert answer_posteriors("commas", table)["c1"].candidates == posteriors.candidates
    gold = {"commas": [1, 2], "optional": []}
    others = [candidate.posterior for candidate in posteriors.candidates if candidate.classes != given]
    assert posteriors.against(get_subtask("commas"), gold, item) == max(others)


def test_wsd_answers_are_their_label_and_an_item_without_answers_has_none():
    items = [{"id": f"w{number}", **WSD_ITEM} for number in range(3)]
    files = [{"w0": {"answer": "A"}, "w1": {"answer": "B"}}, {"w0": {"answer": "A"}, "w1": {"answer": "C"}}]
    found = dawid_skene_answers("wsd", AnswerTable(items, files), ["a", "b"])
    assert found.answers["w0"] == ({"answer": "A"}, None)
    assert found.answers["w2"] == (None, "no answer")
    assert "w2" not in found.items
    assert found.figures()["classes"] == ["A", "B", "C"]
    assert [row["n_answers"] for row in found.figures()["annotators"]] == [2, 2]


@pytest.mark.parametrize("key", ["numerals", "discourse"])
def test_not_offered_where_answers_are_item_specific(key):
    with pytest.raises(NotOffered, match="specific to each item"):
        dawid_skene_answers(key, AnswerTable([], [{}, {}]), ["a", "b"])


def test_the_command_writes_the_answers_and_the_accuracies(tmp_path):
    items = [{"id": f"w{number}", **WSD_ITEM} for number in range(1, 5)]
    inputs = write_jsonl(tmp_path / "inputs.jsonl", items)
    labels = {"a.jsonl": "AABC", "b.jsonl": "ABB", "c.jsonl": "AAB"}
    files = [write_jsonl(tmp_path / name, [{"id": f"w{number}", "answer": label}
                                           for number, label in enumerate(given, 1)]) for name, given in labels.items()]
    output = tmp_path / "ds.jsonl"
    result = run("dawid-skene", "wsd", "--inputs", inputs, "--pred", *files, "-o", output)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{output}: 3 Dawid–Skene answers of 4 items"
    assert lines[1].startswith("iterations: ") and lines[2] == "classes: A, B, C"
    assert [line.split(":")[0] for line in lines[3:]] == [str(name) for name in files]
    assert result.stderr.splitlines() == ["w4: one answer"]
    assert [json.loads(line)["id"] for line in output.read_text().splitlines()] == ["w1", "w2", "w3"]


def test_the_command_refuses_a_subtask_it_does_not_offer(tmp_path):
    inputs = write_jsonl(tmp_path / "inputs.jsonl", [{"id": "n1", "sentence": "Mam [[5]] kotów."}])
    first = write_jsonl(tmp_path / "a.jsonl", [])
    second = write_jsonl(tmp_path / "b.jsonl", [])
    result = run("dawid-skene", "numerals", "--inputs", inputs, "--pred", first, second, "-o", tmp_path / "ds.jsonl")
    assert result.returncode == 2
    assert "not offered for numerals" in result.stderr
    assert not (tmp_path / "ds.jsonl").exists()
