"""Every problem the scorer makes carries its code, its template and its parameters, and its
English message is the template filled with them (what the command line prints)."""

from pathlib import Path

from scoring.evaluate import score_files
from scoring.problems import MESSAGES
from scoring.subtasks import SUBTASKS
from scoring.validation import check_gold, check_inputs, check_submission, draft_problems

DEMO = Path(__file__).resolve().parents[2] / "demo" / "data"
BROKEN = b'{"id": "a"\n[1]\n\xff\n{"id": 1' + b"1" * 5000 + b"}\n" + b"[" * 100000 + b'\n{"id": "x"}\n{"id": "x"}\n{}\n'


def _all_problems():
    for key in tuple(SUBTASKS):
        inputs = (DEMO / key / "dev.inputs.jsonl").read_bytes()
        submission = (DEMO / key / "seed_examples.submission.jsonl").read_bytes()
        records, _ = check_inputs(key, inputs, "in.jsonl")
        for other in tuple(SUBTASKS):
            yield from check_inputs(key, (DEMO / other / "dev.inputs.jsonl").read_bytes(), "x.jsonl")[1]
            yield from check_submission(key, (DEMO / other / "seed_examples.submission.jsonl").read_bytes(), "s.jsonl", records)[1]
            yield from check_gold(key, (DEMO / other / "seed_examples.submission.jsonl").read_bytes(), "g.jsonl", records)[1]
        yield from check_inputs(key, BROKEN, "b.jsonl")[1]
        yield from check_submission(key, BROKEN + submission, "b.jsonl", records)[1]
        scored = score_files(key, submission, "g.jsonl", BROKEN + submission, "p.jsonl")
        yield from scored.errors + scored.answer_faults
        yield from draft_problems(key, {"nope": 1})
        yield from draft_problems(key, [])


def test_every_problem_is_its_template_filled_with_its_params():
    seen = set()
    for problem in _all_problems():
        assert problem.template in MESSAGES, problem
        assert problem.code == problem.template.partition("/")[0] or problem.template == "schema", problem
        assert problem.message == MESSAGES[problem.template] % problem.params, problem
        seen.add(problem.template)
    assert {"duplicate_id", "json", "json/depth", "encoding", "not_object", "required", "enum", "bad_target"} <= seen


def test_a_duplicate_id_names_the_id_and_its_first_line_as_params():
    _, problems = check_inputs("wsd", b'{"id": "a"}\n\n{"id": "a"}\n', "f.jsonl")
    repeated = [problem for problem in problems if problem.code == "duplicate_id"]
    assert [(dict(problem.params), problem.line) for problem in repeated] == [({"id": "a", "first_line": 1}, 3)]
    assert str(repeated[0]) == "f.jsonl:3: id: duplicate id 'a' (first on line 1)"


def test_the_schema_s_minimum_and_its_missing_fields_are_templates_with_their_params():
    """Neither is read back from jsonschema's English: a position below 1 names its value and
    the minimum, each missing field is named from the schema's list."""
    inputs, _ = check_inputs("commas", b'{"id": "a", "sentence_with_positions": "Ala [1] ma [2] kota."}\n', "in.jsonl")
    _, problems = check_submission("commas", b'{"id": "a", "commas": [0], "optional": []}\n{}\n', "s.jsonl", inputs)
    below = next(problem for problem in problems if problem.field == "commas[0]")
    assert (below.code, below.template, dict(below.params)) == ("minimum", "minimum", {"value": 0, "minimum": 1})
    assert str(below) == "s.jsonl:1: commas[0]: 0 is less than the minimum of 1"
    assert [problem.field for problem in problems if problem.line == 2 and problem.code == "required"] == [
        "commas", "id", "optional"]
