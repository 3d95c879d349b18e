"""The fast yes-check never accepts what jsonschema refuses, and accepts the real data."""

import copy
import json
import random
from pathlib import Path

import pytest

from scoring.fastschema import compile_schema
from scoring.subtasks import SUBTASK_KEYS
from scoring.validation import validator

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


@pytest.mark.parametrize("key", SUBTASK_KEYS)
@pytest.mark.parametrize("kind", ["input", "output", "gold", "answer"])
def test_quick_check_is_sound_and_accepts_the_sample_data(key, kind):
    compiled = validator(key, kind)
    assert compiled.quick is not None
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


def test_unknown_keyword_gets_no_shortcut():
    assert compile_schema({"type": "object", "patternProperties": {"^x": {}}}) is None
    assert compile_schema({"type": "string", "pattern": "^a"}) is None
    assert compile_schema({"type": "integer", "minimum": 1}) is not None


def test_integer_valued_float_is_left_to_jsonschema():
    quick = compile_schema({"type": "integer"})
    assert quick(3) and not quick(True) and not quick(1.0)
