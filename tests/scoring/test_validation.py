"""Input, gold and submission checks; single answers; drafts; submission lines."""

import json
from pathlib import Path

import pytest

from scoring.evaluate import read_predictions
from scoring.subtasks import SUBTASKS, get_subtask
from scoring.validation import (
    answer_problems,
    check_gold,
    check_inputs,
    check_submission,
    draft_problems,
    repeated_id,
    submission_line,
)

DATA = Path(__file__).resolve().parents[2] / "demo" / "data"
GOLD_FILE = {key: "dev.SYNTHETIC-gold.jsonl" if key == "discourse" else "dev.gold.jsonl" for key in tuple(SUBTASKS)}


def jsonl(*records) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode("utf-8")


def messages(problems):
    return [str(problem) for problem in problems]


def read(path: Path) -> bytes:
    return path.read_bytes()


# the sample data and the seed examples -----------------------------------------------------

@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_sample_inputs_and_gold_pass(key):
    inputs, problems = check_inputs(key, read(DATA / key / "dev.inputs.jsonl"), "dev.inputs.jsonl")
    assert problems == [] and len(inputs) > 30
    gold, problems = check_gold(key, read(DATA / key / GOLD_FILE[key]), GOLD_FILE[key], inputs)
    assert problems == [] and len(gold) == len(inputs)


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_seed_examples_round_trip_through_validate(key):
    inputs, problems = check_inputs(key, read(DATA / key / "seed_examples.inputs.jsonl"), "seed.inputs")
    assert problems == [] and inputs
    data = read(DATA / key / "seed_examples.submission.jsonl")
    answers, problems = check_submission(key, data, "seed.jsonl", inputs, partial=False)
    assert problems == [] and len(answers) == len(inputs)
    items = {item["id"]: item for item in inputs}
    for line in answers:
        answer = {name: value for name, value in line.items() if name != "id"}
        assert answer_problems(key, answer, items[line["id"]]) == []
        assert submission_line(key, line["id"], answer) == line  # already canonical: the same line back


def test_registry_has_the_six_subtasks_in_order():
    assert list(SUBTASKS) == sorted(SUBTASKS, key=lambda key: SUBTASKS[key].number)
    assert [subtask.number for subtask in SUBTASKS.values()] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(KeyError, match="unknown subtask"):
        get_subtask("ner")


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_schemas_describe_the_answer_fields(key):
    subtask = get_subtask(key)
    assert list(subtask.submission_schema["properties"]) == ["id", *subtask.answer_fields]
    assert subtask.submission_schema["required"] == ["id", *subtask.answer_fields]
    inferred = "inferred" in subtask.submission_schema["description"]
    assert inferred == (key in ("numerals", "discourse"))


# input checks ---------------------------------------------------------------------------------

def one_input_problem(key, record):
    _, problems = check_inputs(key, jsonl(record), "in.jsonl")
    return messages(problems)


@pytest.mark.parametrize("sentence", ["A [1] b [3] c", "A [1] b [1] c", "A [2] b [1] c", "no markers", "A [0] b"])
def test_commas_bad_markers(sentence):
    found = one_input_problem("commas", {"id": "x", "sentence_with_positions": sentence})
    assert len(found) == 1 and found[0].startswith("in.jsonl:1: sentence_with_positions: ")


def test_commas_good_markers():
    assert one_input_problem("commas", {"id": "x", "sentence_with_positions": "A [1] b [2] c [3] d."}) == []


@pytest.mark.parametrize("sentence", ["Mam 5 kotów.", "Mam [[5]] i [[6]] kotów.", "Mam [[pięć]] kotów.", "Mam [[5]] kotów [[x]]."])
def test_numerals_bad_target(sentence):
    found = one_input_problem("numerals", {"id": "x", "sentence": sentence})
    assert len(found) == 1 and found[0].startswith("in.jsonl:1: sentence: ")


def wsd_item(**changes):
    item = {"id": "x", "reference_sentence": "Stary [[TARGET]]zamek[[/TARGET]] stoi.",
            "candidates": {label: f"{label} [[TARGET]]zamek[[/TARGET]]." for label in "ABCD"}}
    item.update(changes)
    return item


def test_wsd_markers():
    assert one_input_problem("wsd", wsd_item()) == []
    found = one_input_problem("wsd", wsd_item(reference_sentence="[[TARGET]]a[[/TARGET]] [[TARGET]]b[[/TARGET]]"))
    assert len(found) == 1 and found[0].startswith("in.jsonl:1: reference_sentence: ")
    candidates = {label: f"{label} [[TARGET]]zamek[[/TARGET]]." for label in "ABCD"} | {"C": "C [[TARGET]]zamek."}
    found = one_input_problem("wsd", wsd_item(candidates=candidates))
    assert len(found) == 1 and found[0].startswith("in.jsonl:1: candidates.C: ")
    found = one_input_problem("wsd", wsd_item(reference_sentence="[[/TARGET]]zamek[[TARGET]]"))
    assert len(found) == 1 and "in that order" in found[0]


def coreference_item(context, **candidates):
    texts = {"A": "Ala", "B": "kot", "C": "dom", "D": "las"} | candidates
    return {"id": "x", "context": context, "candidates": texts}


GOOD_CONTEXT = "[A]Ala[/A] ma [B]kot[/B], [C]dom[/C] i [D]las[/D]. [T]Ona[/T] śpi."


def test_coreference_markers_and_candidate_text():
    assert one_input_problem("coreference", coreference_item(GOOD_CONTEXT)) == []
    found = one_input_problem("coreference", coreference_item(GOOD_CONTEXT.replace("[B]kot[/B]", "kot")))
    assert found == ["in.jsonl:1: context: expected [B]...[/B] exactly once, found 0 [B] and 0 [/B]"]
    found = one_input_problem("coreference", coreference_item(GOOD_CONTEXT + " [T]ona[/T]"))
    assert len(found) == 1 and found[0].startswith("in.jsonl:1: context: expected [T]...[/T] exactly once")
    found = one_input_problem("coreference", coreference_item(GOOD_CONTEXT, C="domy"))
    assert len(found) == 1 and found[0].startswith("in.jsonl:1: candidates.C: differs from the text marked [C]")


def discourse_item(*units):
    return {"id": "x", "document_id": "d", "passage_id": "d:1", "discourse_units": list(units)}


def du_in(du_id, *parts):
    return {"du_id": du_id, "orig_id": f"o{du_id}", "sent_id": "1", "parts": list(parts)}


def test_discourse_input_checks():
    part = {"order": 0, "text": "Tekst."}
    assert one_input_problem("discourse", discourse_item(du_in("1", part), du_in("2", {"order": 1, "text": "Dalej."}))) == []
    assert one_input_problem("discourse", discourse_item(du_in("1", part), du_in("1", part))) == [
        "in.jsonl:1: discourse_units[1].du_id: du_id '1' is used twice"]
    assert one_input_problem("discourse", discourse_item(du_in("1"))) == [
        "in.jsonl:1: discourse_units[0].parts: must not be an empty list"]
    found = one_input_problem("discourse", discourse_item(du_in("1", {"order": "0", "text": "a"})))
    assert found == ["in.jsonl:1: discourse_units[0].parts[0].order: expected integer, found string"]


def test_morphosyntax_input_schema():
    assert one_input_problem("morphosyntax", {"id": "x"}) == ["in.jsonl:1: sentence: is required"]
    assert one_input_problem("morphosyntax", {"id": "x", "sentence": ""}) == ["in.jsonl:1: sentence: must not be empty"]


def test_duplicate_ids_and_line_numbers_count_blank_lines():
    data = b'{"id": "a", "sentence": "Jeden."}\n\n{"id": "a", "sentence": "Dwa."}\n{"id": 5, "sentence": "Trzy."}\n'
    _, problems = check_inputs("morphosyntax", data, "in.jsonl")
    assert messages(problems) == [
        "in.jsonl:3: id: duplicate id 'a' (first on line 1)",
        "in.jsonl:4: id: expected string, found integer",
    ]


def test_a_repeated_id_is_one_problem_wherever_it_is_found():
    assert repeated_id("a", {"b": 1}, "in.jsonl", 3) is None
    problem = repeated_id("a", {"a": 1, "b": 2}, "in.jsonl", 3)
    assert (str(problem), problem.field, problem.code) == ("in.jsonl:3: id: duplicate id 'a' (first on line 1)", "id", "duplicate_id")


def test_a_prediction_repeats_only_an_id_of_the_gold_file():
    data = jsonl({"id": "x", "answer": "A"}, {"id": "x", "answer": "B"}, {"id": "a", "answer": "A"}, {"id": "a", "answer": "B"})
    _, errors, _ = read_predictions(get_subtask("wsd"), data, "pred.jsonl", {"a"})
    assert messages(errors) == [
        "pred.jsonl:1: id: 'x' is not an id of the gold file",
        "pred.jsonl:2: id: 'x' is not an id of the gold file",
        "pred.jsonl:4: id: duplicate id 'a' (first on line 3)",
    ]


# gold ---------------------------------------------------------------------------------------

def test_gold_ids_must_be_input_ids_once_and_references_must_exist():
    inputs = [{"id": "a", "sentence_with_positions": "X [1] y [2] z"}, {"id": "b", "sentence_with_positions": "X [1] y"}]
    data = jsonl({"id": "a", "commas": [2], "optional": []}, {"id": "a", "commas": [], "optional": []},
                 {"id": "c", "commas": [], "optional": []}, {"id": "b", "commas": [2], "optional": []})
    _, problems = check_gold("commas", data, "gold.jsonl", inputs)
    assert messages(problems) == [
        "gold.jsonl:2: id: duplicate id 'a' (first on line 1)",
        "gold.jsonl:3: id: 'c' is not an id of the inputs",
        "gold.jsonl:4: commas: positions [2] are not markers of the item (it has [1]..[1])",
    ]


def test_numerals_gold_shape():
    inputs = [{"id": "a", "sentence": "Mam [[5]] kotów."}]
    assert check_gold("numerals", jsonl({"id": "a", "answers": ["pięć"]}), "g", inputs)[1] == []
    _, problems = check_gold("numerals", jsonl({"id": "a", "answer": "pięć"}), "g", inputs)
    assert messages(problems) == ["g:1: answer: is not a field of this record", "g:1: answers: is required"]


def test_discourse_gold_must_be_a_valid_tree_of_the_item():
    item = discourse_item(du_in("1", {"order": 0, "text": "a"}), du_in("2", {"order": 1, "text": "b"}))
    gold = {"id": "x", "discourse_units": [{"du_id": "1", "head": None, "relation": None}]}
    _, problems = check_gold("discourse", jsonl(gold), "g", [item])
    assert messages(problems) == ["g:1: discourse_units: DU 2: the DU is not given"]


# submissions ---------------------------------------------------------------------------------

COMMAS_INPUTS = [{"id": f"i{index}", "sentence_with_positions": "A [1] b [2] c [3] d"} for index in range(3)]


def test_submission_must_answer_every_input_once_unless_partial():
    data = jsonl({"id": "i0", "commas": [1], "optional": []}, {"id": "i9", "commas": [], "optional": []})
    _, problems = check_submission("commas", data, "sub.jsonl", COMMAS_INPUTS, partial=False)
    assert messages(problems) == [
        "sub.jsonl:2: id: 'i9' is not an id of the inputs",
        "sub.jsonl: id: input 'i1' has no answer",
        "sub.jsonl: id: input 'i2' has no answer",
    ]
    _, problems = check_submission("commas", data, "sub.jsonl", COMMAS_INPUTS, partial=True)
    assert messages(problems) == ["sub.jsonl:2: id: 'i9' is not an id of the inputs"]


def test_submission_without_inputs_checks_shape_and_own_consistency():
    data = jsonl({"id": "i0", "commas": [3, 1], "optional": [1]}, {"id": "i1", "commas": [7], "optional": []})
    _, problems = check_submission("commas", data, "sub.jsonl", None, partial=False)
    assert messages(problems) == [
        "sub.jsonl:1: commas: indices must be ascending without duplicates",
        "sub.jsonl:1: optional: positions [1] are also in commas",
    ]


@pytest.mark.parametrize("key, answer, expected", [
    ("commas", {"commas": [1, 1], "optional": []}, ["commas: has duplicates"]),
    ("commas", {"commas": [2, 1], "optional": []}, ["commas: indices must be ascending without duplicates"]),
    ("commas", {"commas": [1], "optional": [1]}, ["optional: positions [1] are also in commas"]),
    ("commas", {"commas": [4], "optional": []}, ["commas: positions [4] are not markers of the item (it has [1]..[3])"]),
    ("commas", {"commas": [0], "optional": []}, ["commas[0]: 0 is less than the minimum of 1"]),
    ("commas", {"commas": []}, ["optional: is required"]),
    ("commas", {"id": "x", "commas": [], "optional": []}, ["id: is not a field of this record"]),
])
def test_commas_answer_problems(key, answer, expected):
    item = {"id": "x", "sentence_with_positions": "A [1] b [2] c [3] d"}
    assert messages(answer_problems(key, answer, item)) == expected


def test_morphosyntax_answer_problems():
    item = {"id": "x", "sentence": "Ala ma kot."}
    assert answer_problems("morphosyntax", {"answer": "POPRAWNE", "corrected_sentence": ""}, item) == []
    assert messages(answer_problems("morphosyntax", {"answer": "POPRAWNE", "corrected_sentence": "Ala ma kota."}, item)) == [
        "corrected_sentence: must be empty for POPRAWNE"]
    assert messages(answer_problems("morphosyntax", {"answer": "NIEPOPRAWNE", "corrected_sentence": " "}, item)) == [
        "corrected_sentence: must hold the full corrected sentence for NIEPOPRAWNE"]
    assert messages(answer_problems("morphosyntax", {"answer": "poprawne", "corrected_sentence": ""}, item)) == [
        "answer: 'poprawne' is not one of: POPRAWNE, NIEPOPRAWNE"]


def test_label_and_numeral_answer_problems():
    assert messages(answer_problems("wsd", {"answer": "E"}, wsd_item())) == ["answer: 'E' is not one of: A, B, C, D"]
    assert answer_problems("coreference", {"answer": "D"}, coreference_item(GOOD_CONTEXT)) == []
    assert messages(answer_problems("numerals", {"answer": "  "}, {"id": "x", "sentence": "[[5]]"})) == ["answer: must not be blank"]
    assert messages(answer_problems("numerals", {"answer": ""}, {"id": "x", "sentence": "[[5]]"})) == ["answer: must not be empty"]


def test_discourse_answer_problems_name_the_du():
    item = discourse_item(du_in("1", {"order": 0, "text": "a"}), du_in("2", {"order": 1, "text": "b"}))
    answer = {"discourse_units": [{"du_id": "1", "head": None, "relation": None}, {"du_id": "2", "head": "2", "relation": "Cause"}]}
    found = answer_problems("discourse", answer, item)
    assert messages(found) == ["discourse_units[1]: DU 2: the DU is its own head"]
    assert found[0].code == "self_attachment"
    answer["discourse_units"][1]["relation"] = "Co-occurrence"
    assert [problem.field for problem in answer_problems("discourse", answer, item)] == ["discourse_units[1].relation"]


# drafts and submission lines -------------------------------------------------------------------

def test_draft_problems_shape_only():
    assert draft_problems("morphosyntax", {"answer": None, "corrected_sentence": "Ala"}) == []
    assert draft_problems("commas", {"commas": [3, 1]}) == []
    assert draft_problems("discourse", {"discourse_units": [{"du_id": "1", "head": None}]}) == []
    assert messages(draft_problems("commas", {"commas": "1", "extra": 1})) == [
        "commas: expected array or null", "extra: is not an answer field of this subtask"]
    assert messages(draft_problems("wsd", {"answer": True})) == ["answer: expected string or null"]
    assert messages(draft_problems("wsd", ["A"])) == ["answer: expected a JSON object"]


def test_submission_line_normalises_and_orders_fields():
    assert list(submission_line("commas", "x", {"optional": [3, 1], "commas": [2, 2]}).items()) == [
        ("id", "x"), ("commas", [2]), ("optional", [1, 3])]
    assert submission_line("morphosyntax", "x", {"corrected_sentence": " Ala  ma kota. ", "answer": "NIEPOPRAWNE"}) == {
        "id": "x", "answer": "NIEPOPRAWNE", "corrected_sentence": "Ala ma kota."}
    assert submission_line("numerals", "x", {"answer": " Stu  Dwudziestu"}) == {"id": "x", "answer": "stu dwudziestu"}
    assert submission_line("wsd", "x", {"answer": "B", "note": "dropped"}) == {"id": "x", "answer": "B"}
    units = [{"du_id": "1", "head": None, "relation": None, "x": 1}]
    assert submission_line("discourse", "x", {"discourse_units": units}) == {
        "id": "x", "discourse_units": [{"du_id": "1", "head": None, "relation": None}]}


def test_draft_problems_reach_the_leaves_of_the_schema():
    assert messages(draft_problems("discourse", {"discourse_units": [{"du_id": [], "head": None, "relation": None}]})) == [
        "discourse_units[0].du_id: expected string or null"]
    assert messages(draft_problems("discourse", {"discourse_units": [{"du_id": "1", "head": 2, "relation": 3, "x": 1}, "u"]})) == [
        "discourse_units[0].head: expected string or null", "discourse_units[0].relation: expected string or null",
        "discourse_units[0].x: is not a field of this record", "discourse_units[1]: expected object or null"]
    assert messages(draft_problems("commas", {"commas": ["<img>", {"a": 1}, None, True, 1.5]})) == [
        "commas[0]: expected integer or null", "commas[1]: expected integer or null",
        "commas[3]: expected integer or null", "commas[4]: expected integer or null"]
    assert messages(draft_problems("wsd", {"a": 1})) == ["a: is not an answer field of this subtask"]
    assert messages(draft_problems("wsd", ["x"])) == ["answer: expected a JSON object"]
    # incomplete is fine: missing fields, nulls, missing list items, values not (yet) allowed
    assert draft_problems("discourse", {"discourse_units": [{"du_id": "1"}, None, {"head": None}]}) == []
    assert draft_problems("commas", {"commas": [], "optional": None}) == []
    assert draft_problems("wsd", {"answer": "E"}) == []
