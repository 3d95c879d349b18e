"""The fast yes-check never accepts what jsonschema refuses, accepts the real data, and is
used only for schemas made of the keywords it is known to read as jsonschema does."""

import copy
import json
import random
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from scoring.fastschema import compile_schema, uses_fast_keywords_only
from scoring.subtasks import SUBTASKS
from scoring.validation import CompiledSchema, schema_problems, validator

DATA = Path(__file__).resolve().parents[2] / "demo" / "data"
ODD_VALUES = [None, True, False, 0, 1, -1, 1.0, 2.5, "", "x", "A", "POPRAWNE", "Cause", [], {}, [1, 1], [2, 1],
              [True], ["a"], [1.0], [{}], {"du_id": "1"}, float("nan")]


def records(key, kind):
    """Valid records of the kind, from the sample data."""
    if kind == "input":
        path = DATA / key / "dev.inputs.jsonl"
    elif kind == "gold":
        path = DATA / key / ("dev.SYNTHETIC-gold.jsonl" if key == "discourse" else "dev.gold.jsonl")
    else:
        path = DATA / key / "seed_examples.submission.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if kind == "answer":
        lines = [{name: value for name, value in line.items() if name != "id"} for line in lines]
    return lines


def mutate(value, rng):
    """A copy of ``value`` with one random change somewhere inside it."""
    value = copy.deepcopy(value)
    containers = [value]
    target = value
    while isinstance(target, (dict, list)) and target and rng.random() < 0.7:
        key = rng.choice(list(target)) if isinstance(target, dict) else rng.randrange(len(target))
        if not isinstance(target[key], (dict, list)):
            break
        target = target[key]
        containers.append(target)
    if isinstance(target, dict):
        action = rng.random()
        if target and action < 0.3:
            del target[rng.choice(list(target))]
        elif action < 0.5:
            target[rng.choice(["extra", "id", "answer", "head", "relation", "commas"])] = rng.choice(ODD_VALUES)
        elif target:
            target[rng.choice(list(target))] = copy.deepcopy(rng.choice(ODD_VALUES))
    elif isinstance(target, list):
        action = rng.random()
        if target and action < 0.3:
            target.pop(rng.randrange(len(target)))
        elif target and action < 0.6:
            target.append(copy.deepcopy(rng.choice(target)))
        elif target:
            target[rng.randrange(len(target))] = copy.deepcopy(rng.choice(ODD_VALUES))
        else:
            target.append(copy.deepcopy(rng.choice(ODD_VALUES)))
    return value


@pytest.mark.parametrize("key", tuple(SUBTASKS))
@pytest.mark.parametrize("kind", ["input", "output", "gold", "answer"])
def test_quick_check_is_sound_and_accepts_the_sample_data(key, kind):
    compiled = validator(key, kind)
    if compiled.quick is None:  # a schema using a keyword off the list: jsonschema alone
        assert not uses_fast_keywords_only(compiled.schema)
        return
    valid = records(key, kind)
    for record in valid:
        assert compiled.quick(record), record
    rng = random.Random(f"{key}/{kind}")
    accepted_by_both = refused_by_both = 0
    for _ in range(1500):
        record = mutate(rng.choice(valid), rng)
        quick, full = compiled.quick(record), compiled.full.is_valid(record)
        assert not quick or full, record  # the shortcut never says yes to an invalid record
        accepted_by_both += quick and full
        refused_by_both += not quick and not full
    assert accepted_by_both and refused_by_both  # both outcomes were exercised


def test_a_keyword_off_the_list_gets_no_shortcut_anywhere_in_the_schema():
    assert compile_schema({"type": "object", "patternProperties": {"^x": {}}}) is None
    assert compile_schema({"type": "string", "pattern": "^a"}) is None
    assert compile_schema({"type": "array", "items": {"type": "string", "maxLength": 3}}) is None
    assert compile_schema({"type": "array", "items": [{"type": "string"}]}) is None  # the tuple form differs by draft
    assert compile_schema({"type": "object", "properties": {"a": {"default": 1}}}) is None
    assert compile_schema({"type": "integer", "minimum": 1}) is not None


def test_a_schema_with_any_keyword_is_checked_by_jsonschema(monkeypatch):
    schema = {"type": "object", "properties": {"commas": {"type": "array", "maxItems": 2, "items": {"type": "integer"}}},
              "required": ["commas"], "additionalProperties": False}
    compiled = CompiledSchema(schema, compile_schema(schema))
    assert compiled.quick is None
    assert schema_problems(compiled, {"commas": [1, 2]}) == []
    assert [problem.code for problem in schema_problems(compiled, {"commas": [1, 2, 3]})] == ["maxItems"]


def test_integers_and_booleans_are_judged_as_jsonschema_does():
    quick = compile_schema({"type": "integer"})
    full = Draft202012Validator({"type": "integer"})
    for value in (3, 1.0, True, 1.5, "3"):
        assert quick(value) == full.is_valid(value), value


def test_unique_items_of_properties_are_checked_without_fastjsonschema_and_leave_no_garbage():
    import gc

    quick = compile_schema(validator("commas", "output").schema)
    assert quick({"id": "a", "commas": [1, 3], "optional": [2]})
    for repeated in ([1, 1], [2, 1, 2]):
        assert not quick({"id": "a", "commas": repeated, "optional": []})
        assert not quick({"id": "a", "commas": [], "optional": repeated})
    assert not quick({"id": "a", "commas": [1, True], "optional": []})  # left to jsonschema
    gc.collect()
    gc.disable()
    try:
        for _ in range(100):
            quick({"id": "a", "commas": [1, 3], "optional": [2]})
        assert gc.collect() == 0  # no reference cycle made per record checked
    finally:
        gc.enable()
