"""python -m scoring agreement|majority, run as a subprocess."""

import json

import pytest

from tests.scoring.test_cli import run, write_jsonl

ITEMS = [
    {"id": "w1", "reference_sentence": "[[TARGET]]zamek[[/TARGET]] a", "candidates": {
        label: f"{label} [[TARGET]]zamek[[/TARGET]]" for label in "ABCD"}},
]


def wsd_inputs(tmp_path, count=4):
    items = [{**ITEMS[0], "id": f"w{number}"} for number in range(1, count + 1)]
    return write_jsonl(tmp_path / "inputs.jsonl", items)


def answers(tmp_path, name, labels):
    """A wsd submission: labels[i] answers item w{i+1}; None leaves it out."""
    records = [{"id": f"w{number}", "answer": label} for number, label in enumerate(labels, start=1) if label is not None]
    return write_jsonl(tmp_path / name, records)


def test_agreement_json(tmp_path):
    inputs = wsd_inputs(tmp_path)
    first = answers(tmp_path, "a.jsonl", ["A", "B", "C", "D"])
    second = answers(tmp_path, "b.jsonl", ["A", "B", "C", None])
    result = run("agreement", "wsd", "--inputs", inputs, "--pred", first, second, "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["n_items"] == 3 and figures["n_answers"] == 6
    assert figures["observed_agreement"] == 1.0 and figures["alpha"] == 1.0
    assert figures["reasons"] == {}


def test_agreement_text_names_the_reason_of_a_null(tmp_path):
    inputs = wsd_inputs(tmp_path)
    first = answers(tmp_path, "a.jsonl", ["A", "A"])
    second = answers(tmp_path, "b.jsonl", ["A", "A"])
    result = run("agreement", "wsd", "--inputs", inputs, "--pred", first, second)
    assert result.returncode == 0, result.stderr
    assert "observed_agreement: 1.0000" in result.stdout.splitlines()
    assert any(line.startswith("alpha: null (") for line in result.stdout.splitlines())


def test_a_faulty_line_is_an_answer_not_given_listed_on_stderr(tmp_path):
    inputs = wsd_inputs(tmp_path)
    first = answers(tmp_path, "a.jsonl", ["A", "B"])
    second = tmp_path / "b.jsonl"
    second.write_text('{"id": "w1", "answer": "E"}\n{"id": "w2", "answer": "B", "extra": 1}\n', encoding="utf-8")
    result = run("agreement", "wsd", "--inputs", inputs, "--pred", first, second, "--json")
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        f"{second}:1: answer: 'E' is not one of: A, B, C, D",
        f"{second}:2: extra: is not a field of this record",
    ]
    assert json.loads(result.stdout)["n_items"] == 0


@pytest.mark.parametrize("content, message", [
    ('{"id": "w1", "answer": "A"}\n{"id": "w1"\n', ":2: json: invalid JSON"),
    ('{"answer": "A"}\n', ":1: id: is required"),
    ('{"id": 7, "answer": "A"}\n', ":1: id: expected string, found integer"),
    ('{"id": "w1", "answer": "A"}\n\n{"id": "w1", "answer": "B"}\n', ":3: id: duplicate id 'w1' (first on line 1)"),
    ('{"id": "zz", "answer": "A"}\n', ":1: id: 'zz' is not an id of the inputs"),
])
def test_file_errors_exit_1_naming_file_and_line(tmp_path, content, message):
    inputs = wsd_inputs(tmp_path)
    first = answers(tmp_path, "a.jsonl", ["A"])
    broken = tmp_path / "broken.jsonl"
    broken.write_text(content, encoding="utf-8")
    for command in (["agreement", "wsd"], ["majority", "wsd", "-o", tmp_path / "out.jsonl"]):
        result = run(*command, "--inputs", inputs, "--pred", first, broken)
        assert result.returncode == 1
        assert f"{broken}{message}" in result.stderr
        assert result.stdout == ""


def test_an_unreadable_file_exits_1(tmp_path):
    inputs = wsd_inputs(tmp_path)
    first = answers(tmp_path, "a.jsonl", ["A"])
    result = run("agreement", "wsd", "--inputs", inputs, "--pred", first, tmp_path / "missing.jsonl")
    assert result.returncode == 1
    assert "missing.jsonl: cannot read" in result.stdout + result.stderr


def test_one_pred_file_is_a_wrong_command_line(tmp_path):
    inputs = wsd_inputs(tmp_path)
    first = answers(tmp_path, "a.jsonl", ["A"])
    assert run("agreement", "wsd", "--inputs", inputs, "--pred", first).returncode == 2


def test_majority_writes_a_partial_submission_in_input_order_and_lists_the_rest(tmp_path):
    inputs = wsd_inputs(tmp_path, count=5)
    first = answers(tmp_path, "a.jsonl", ["A", "B", "C", None, None])
    second = answers(tmp_path, "b.jsonl", ["A", "C", "C", "D", None])
    third = tmp_path / "c.jsonl"
    third.write_text('{"id": "w3", "answer": "C"}\n{"id": "w1", "answer": "B"}\n{"id": "w2", "answer": "X"}\n', encoding="utf-8")
    out = tmp_path / "majority.jsonl"
    result = run("majority", "wsd", "--inputs", inputs, "--pred", first, second, third, "-o", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8").splitlines() == ['{"id": "w1", "answer": "A"}', '{"id": "w3", "answer": "C"}']
    assert result.stderr.splitlines() == [
        f"{third}:3: answer: 'X' is not one of: A, B, C, D",
        "w2: no majority",
        "w4: one answer",
        "w5: no answer",
    ]
    assert run("validate", "wsd", out, "--inputs", inputs, "--partial").returncode == 0


def test_faults_are_listed_file_by_file_in_the_order_of_pred(tmp_path):
    inputs = wsd_inputs(tmp_path)
    first = tmp_path / "a.jsonl"
    first.write_text('{"id": "w1", "answer": "A"}\n{"id": "w2", "answer": "Q"}\n', encoding="utf-8")
    second = tmp_path / "b.jsonl"
    second.write_text('{"id": "w1", "answer": "Q"}\n', encoding="utf-8")
    result = run("agreement", "wsd", "--inputs", inputs, "--pred", first, second)
    assert result.returncode == 0
    assert [line.split(":")[0] for line in result.stderr.splitlines()] == [str(first), str(second)]
