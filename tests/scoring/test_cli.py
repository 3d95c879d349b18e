"""python -m scoring, run as a subprocess on the sample data and on broken files."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.subtasks import SUBTASKS

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "demo" / "data"
GOLD_FILE = {key: "dev.SYNTHETIC-gold.jsonl" if key == "discourse" else "dev.gold.jsonl" for key in tuple(SUBTASKS)}


def run(*args):
    return subprocess.run([sys.executable, "-m", "scoring", *map(str, args)], cwd=ROOT, capture_output=True, text=True)


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path, records, line_end="\n"):
    Path(path).write_text("".join(json.dumps(record, ensure_ascii=False) + line_end for record in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_check_inputs_passes_on_the_sample_data(key):
    result = run("check-inputs", key, DATA / key / "dev.inputs.jsonl", "--gold", DATA / key / GOLD_FILE[key])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "valid" in result.stdout


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_seed_examples_validate(key):
    result = run("validate", key, DATA / key / "seed_examples.submission.jsonl", "--inputs", DATA / key / "seed_examples.inputs.jsonl")
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_inputs_reports_file_line_field(tmp_path):
    inputs = tmp_path / "in.jsonl"
    inputs.write_bytes(b'{"id": "a", "sentence_with_positions": "A [1] b [3] c"}\n{"id": "b"\n')
    result = run("check-inputs", "commas", inputs)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"{inputs}:1: sentence_with_positions: markers must be [1]..[2], consecutive from 1, each once; found [1] [3]"
    assert lines[1].startswith(f"{inputs}:2: json: invalid JSON")


def test_validate_whole_and_partial(tmp_path):
    inputs = DATA / "commas" / "dev.inputs.jsonl"
    gold = read_jsonl(DATA / "commas" / "dev.gold.jsonl")
    complete = write_jsonl(tmp_path / "complete.jsonl", gold, line_end="\r\n")
    assert run("validate", "commas", complete, "--inputs", inputs).returncode == 0
    partial = write_jsonl(tmp_path / "partial.jsonl", gold[:10])
    result = run("validate", "commas", partial, "--inputs", inputs)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == f"{partial}: id: input {gold[10]['id']!r} has no answer"
    assert run("validate", "commas", partial, "--inputs", inputs, "--partial").returncode == 0


def test_validate_refuses_bad_answers_with_one_line_each(tmp_path):
    inputs = DATA / "commas" / "dev.inputs.jsonl"
    items = read_jsonl(inputs)[:3]
    submission = tmp_path / "sub.jsonl"
    submission.write_text(
        "\ufeff" + json.dumps({"id": items[0]["id"], "commas": [2, 1], "optional": []}) + "\n\n"
        + json.dumps({"id": items[1]["id"], "commas": [99], "optional": []}) + "\n"
        + json.dumps({"id": items[1]["id"], "commas": [], "optional": []}) + "\n",
        encoding="utf-8")
    result = run("validate", "commas", submission, "--inputs", inputs, "--partial")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{submission}:1: commas: indices must be ascending without duplicates",
        f"{submission}:3: commas: positions [99] are not markers of the item (it has [1]..[{items[1]['sentence_with_positions'].count('[')}])",
        f"{submission}:4: id: duplicate id {items[1]['id']!r} (first on line 3)",
    ]


def test_score_json_on_the_sample_data(tmp_path):
    gold = read_jsonl(DATA / "commas" / "dev.gold.jsonl")
    pred = [dict(record) for record in gold[:-1]]  # the last item unanswered
    wrong = next(index for index, record in enumerate(pred) if record["commas"])
    pred[wrong]["commas"] = []
    result = run("score", "commas", "--gold", DATA / "commas" / "dev.gold.jsonl", "--pred", write_jsonl(tmp_path / "p.jsonl", pred), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    scores = json.loads(result.stdout)
    assert scores["score"] == pytest.approx((len(gold) - 2) / len(gold))
    assert (scores["n_gold"], scores["n_missing"]) == (len(gold), 1)
    assert {"micro_precision", "micro_recall", "micro_f1", "lenient_exact_set_accuracy"} <= set(scores)


def test_score_plain_text_output():
    gold = DATA / "wsd" / "dev.gold.jsonl"
    result = run("score", "wsd", "--gold", gold, "--pred", gold)
    assert result.returncode == 0
    assert "score: 1.0000" in result.stdout.splitlines() and "per_label.A.f1: 1.0000" in result.stdout


def test_score_discourse_reports_all_figures(tmp_path):
    gold = read_jsonl(DATA / "discourse" / "dev.SYNTHETIC-gold.jsonl")
    pred = json.loads(json.dumps(gold))
    pred[0]["discourse_units"][1]["head"] = pred[0]["discourse_units"][1]["du_id"]  # self-attachment
    result = run("score", "discourse", "--gold", DATA / "discourse" / "dev.SYNTHETIC-gold.jsonl",
                 "--pred", write_jsonl(tmp_path / "p.jsonl", pred), "--json")
    assert result.returncode == 0
    scores = json.loads(result.stdout)
    attachments = sum(unit["head"] is not None for record in gold for unit in record["discourse_units"])
    assert scores["las"] == scores["score"] == pytest.approx((attachments - 1) / attachments)
    assert scores["uas"] == scores["las"]
    assert scores["root_accuracy"] == 1.0
    assert scores["tree_validity"] == pytest.approx((len(gold) - 1) / len(gold))
    assert f"{tmp_path / 'p.jsonl'}:1: discourse_units[1]: DU " in result.stderr  # the fault is listed


def test_score_lists_answer_faults_and_counts_them_wrong(tmp_path):
    gold = read_jsonl(DATA / "coreference" / "dev.gold.jsonl")
    pred = [dict(record) for record in gold]
    pred[0]["answer"] = "E"
    path = write_jsonl(tmp_path / "p.jsonl", pred)
    result = run("score", "coreference", "--gold", DATA / "coreference" / "dev.gold.jsonl", "--pred", path, "--json")
    assert result.returncode == 0
    assert result.stderr.splitlines() == [f"{path}:1: answer: 'E' is not one of: A, B, C, D"]
    scores = json.loads(result.stdout)
    assert scores["accuracy"] == pytest.approx((len(gold) - 1) / len(gold)) and scores["n_invalid"] == 1


@pytest.mark.parametrize("content, expected", [
    (lambda gold: gold[0] + gold[0], ":2: id: duplicate id"),
    (lambda gold: b'{"id": "not-a-gold-id", "answer": "A"}\n', ":1: id: 'not-a-gold-id' is not an id of the gold file"),
    (lambda gold: gold[0] + b'{"id": \n', ":2: json: invalid JSON"),
    (lambda gold: b'{"answer": "A"}\n', ":1: id: missing or not a string"),
])
def test_score_file_level_errors_exit_1(tmp_path, content, expected):
    gold_path = DATA / "wsd" / "dev.gold.jsonl"
    gold_lines = [line + b"\n" for line in gold_path.read_bytes().splitlines()]
    pred = tmp_path / "p.jsonl"
    pred.write_bytes(content(gold_lines))
    result = run("score", "wsd", "--gold", gold_path, "--pred", pred, "--json")
    assert result.returncode == 1
    assert result.stdout.startswith(f"{pred}{expected}")


def test_score_only_answered_reports_coverage(tmp_path):
    gold = read_jsonl(DATA / "numerals" / "dev.gold.jsonl")
    pred = [{"id": record["id"], "answer": record["answers"][0]} for record in gold[:57]]
    pred[0]["answer"] = "zero"
    path = write_jsonl(tmp_path / "p.jsonl", pred)
    scores = json.loads(run("score", "numerals", "--gold", DATA / "numerals" / "dev.gold.jsonl", "--pred", path, "--json", "--only-answered").stdout)
    assert (scores["n_gold"], scores["n_missing"], scores["n_gold_total"]) == (57, 0, len(gold))
    assert scores["coverage"] == pytest.approx(57 / len(gold))
    assert scores["score"] == pytest.approx(56 / 57)
    scores = json.loads(run("score", "numerals", "--gold", DATA / "numerals" / "dev.gold.jsonl", "--pred", path, "--json").stdout)
    assert scores["score"] == pytest.approx(56 / len(gold)) and scores["n_missing"] == len(gold) - 57


def test_unreadable_file_and_unknown_subtask():
    result = run("validate", "wsd", "/nonexistent/sub.jsonl")
    assert result.returncode == 1 and result.stdout.startswith("/nonexistent/sub.jsonl: cannot read")
    assert run("validate", "ner", "x.jsonl").returncode == 2



def imported_top_level_modules(code):
    listing = "import sys, json; print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))"
    result = subprocess.run([sys.executable, "-c", f"{code}\n{listing}"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout))


def test_the_scorer_needs_only_the_standard_library_jsonschema_fastjsonschema_and_numpy():
    at_start_up = imported_top_level_modules("pass")
    modules = imported_top_level_modules(
        "import scoring.__main__, scoring.evaluate\n"
        "from scoring.validation import validator\n"
        "validator('commas', 'output').full")
    added = modules - at_start_up - set(sys.stdlib_module_names) - {"scoring"}
    assert "django" not in modules
    # jsonschema's format checkers import idna when it is installed (schemathesis brings it into
    # the test environment); the scorer works as well without it.
    optional = {"idna"}
    assert added - optional <= {"jsonschema", "jsonschema_specifications", "referencing", "rpds", "attrs", "attr",
                                "typing_extensions", "fastjsonschema", "numpy"}
    assert "jsonschema" in added
