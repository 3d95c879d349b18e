"""Adding a subtask touches the registry only: a toy subtask, its module and schemas held in
memory, goes through check-inputs -> validate -> score -> agreement -> majority of
``python -m scoring`` and the app's answer checks with no other code knowing of it."""

import json
import types
from collections import Counter

import pytest

from scoring.__main__ import main
from scoring.metrics import ratio
from scoring.problems import Problem
from scoring.reliability import AnswerTable, Figures, majority_by_value, observed_agreement
from scoring.subtasks import SUBTASKS, subtask_from_module
from scoring.validation import answer_problems, draft_problems, submission_line, validator

KEY = "palindromes"


def _check_input(record: dict) -> list[Problem]:
    if " " in record["word"]:
        return [Problem("word", "must be one word", "not_a_word")]
    return []


def _check_answer(answer: dict, item: dict | None) -> list[Problem]:
    return []


def _normalise(answer: dict) -> dict:
    result = dict(answer)
    if isinstance(result.get("answer"), str):
        result["answer"] = result["answer"].strip().lower()
    return result


def _line_counts(gold: dict, prediction: dict | None) -> tuple[int, ...]:
    if prediction is None:
        return (0, 1)
    return (int(_normalise(prediction).get("answer") == gold["answer"]), 0)


def _combine(totals: tuple[int, ...], n_lines: int) -> dict:
    correct, missing = totals
    return {"score": ratio(correct, n_lines), "accuracy": ratio(correct, n_lines), "n_gold": n_lines, "n_missing": missing}


def _answer_value(answer: dict) -> str:
    return answer["answer"]


def _agreement_figures(table: AnswerTable, figures: Figures) -> None:
    counts = [Counter(answer["answer"] for answer in answers) for _, answers in table.answered]
    figures.add("observed_agreement", lambda: observed_agreement(counts))


def _majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    return majority_by_value(answers, _answer_value)


def _module() -> types.ModuleType:
    module = types.ModuleType(KEY)
    module.NUMBER = 7
    module.TITLE = "Is the word a palindrome?"
    module.ANSWER_FIELDS = ("answer",)
    module.check_input = _check_input
    module.check_answer = _check_answer
    module.normalise = _normalise
    module.COUNT_NAMES = ("correct", "missing")
    module.line_counts = _line_counts
    module.combine = _combine
    module.agreement_figures = _agreement_figures
    module.majority = _majority
    module.answer_value = _answer_value
    return module


def _line_schema(fields: dict) -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"id": {"type": "string", "minLength": 1}, **fields},
        "required": ["id", *fields],
        "additionalProperties": False,
    }


# The answer is checked by a pattern: a keyword the fast check does not take, so jsonschema does.
ANSWER = {"type": "string", "pattern": "^(tak|nie)$"}
SCHEMAS = {"input": _line_schema({"word": {"type": "string", "minLength": 1}}),
           "output": _line_schema({"answer": ANSWER}), "gold": _line_schema({"answer": ANSWER})}


@pytest.fixture
def toy_subtask(monkeypatch):
    monkeypatch.setitem(SUBTASKS, KEY, subtask_from_module(KEY, _module(), SCHEMAS))
    yield SUBTASKS[KEY]
    validator.cache_clear()


def write_jsonl(path, *records):
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return str(path)


def test_a_toy_subtask_goes_through_check_inputs_validate_and_score(toy_subtask, tmp_path, capsys):
    inputs = write_jsonl(tmp_path / "inputs.jsonl", {"id": "1", "word": "kajak"}, {"id": "2", "word": "kot"},
                         {"id": "3", "word": "oko"})
    gold = write_jsonl(tmp_path / "gold.jsonl", {"id": "1", "answer": "tak"}, {"id": "2", "answer": "nie"},
                       {"id": "3", "answer": "tak"})
    pred = write_jsonl(tmp_path / "pred.jsonl", {"id": "1", "answer": "tak"}, {"id": "2", "answer": "tak"})

    assert main(["check-inputs", KEY, inputs, "--gold", gold]) == 0
    assert main(["validate", KEY, pred, "--inputs", inputs, "--partial"]) == 0
    assert main(["score", KEY, "--gold", gold, "--pred", pred, "--json"]) == 0
    output = capsys.readouterr().out.splitlines()
    assert output[:2] == [f"{inputs} and {gold}: valid {KEY} inputs, 3 items", f"{pred}: valid {KEY} submission, 2 answers"]
    assert json.loads(output[2]) == {"subtask": KEY, "score": 1 / 3, "accuracy": 1 / 3, "n_gold": 3, "n_missing": 1,
                                     "n_answer_faults": 0}


def test_a_toy_subtask_goes_through_agreement_and_majority(toy_subtask, tmp_path, capsys):
    inputs = write_jsonl(tmp_path / "inputs.jsonl", {"id": "1", "word": "kajak"}, {"id": "2", "word": "kot"})
    first = write_jsonl(tmp_path / "a.jsonl", {"id": "1", "answer": "tak"}, {"id": "2", "answer": "nie"})
    second = write_jsonl(tmp_path / "b.jsonl", {"id": "1", "answer": "tak"}, {"id": "2", "answer": "tak"})
    assert main(["agreement", KEY, "--inputs", inputs, "--pred", first, second, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"n_items": 2, "n_answers": 4, "observed_agreement": 0.5, "reasons": {}}
    out = tmp_path / "majority.jsonl"
    assert main(["majority", KEY, "--inputs", inputs, "--pred", first, second, "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == '{"id": "1", "answer": "tak"}\n'
    assert capsys.readouterr().err == "2: no majority\n"


def test_a_toy_subtasks_faults_name_file_line_and_field(toy_subtask, tmp_path, capsys):
    inputs = write_jsonl(tmp_path / "inputs.jsonl", {"id": "1", "word": "kajak"}, {"id": "2", "word": "dwa słowa"})
    pred = write_jsonl(tmp_path / "pred.jsonl", {"id": "1", "answer": "może"})
    assert main(["check-inputs", KEY, inputs]) == 1
    assert main(["validate", KEY, pred]) == 1
    assert capsys.readouterr().out.splitlines() == [f"{inputs}:2: word: must be one word",
                                                    f"{pred}:1: answer: 'może' does not match '^(tak|nie)$'"]


def test_a_toy_subtask_gets_the_apps_answer_checks(toy_subtask):
    item = {"id": "1", "word": "kajak"}
    assert answer_problems(KEY, {"answer": "tak"}, item) == []
    assert [problem.code for problem in answer_problems(KEY, {"answer": "yes"}, item)] == ["pattern"]
    assert draft_problems(KEY, {"answer": None}) == []
    assert [str(problem) for problem in draft_problems(KEY, {"answer": 1, "note": "x"})] == [
        "answer: expected string or null", "note: is not an answer field of this subtask"]
    assert submission_line(KEY, "1", {"answer": " TAK "}) == {"id": "1", "answer": "tak"}
