"""Which fields of an input record are the item's and which would give its answer away.

An input line may carry keys its subtask's input schema does not name. Keys that the
subtask's submission or gold schema names (at any depth) and its input schema does not (the
commas of a commas line, a DU's head or relation) and a top-level ``gold`` are refused at
import: they are answers. Other unknown keys are kept for organizers, but annotators receive
only the fields the input schema names, on the item page and in the API.
"""

from __future__ import annotations

import re
from functools import cache

from annotation.core.problems import problem
from scoring.problems import Problem
from scoring.subtasks import get_subtask

# Not named by any schema, but never an item's field either.
ALWAYS_ANSWER_KEYS = frozenset({"gold"})


def _property_names(schema: object) -> set[str]:
    """Every property name a schema names, at any depth (iterative: schemas are ours, but cheap)."""
    names: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                names.update(properties)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return names


@cache
def answer_keys(subtask: str) -> frozenset[str]:
    """Keys that give an answer away in an input record of ``subtask``."""
    spec = get_subtask(subtask)
    answer_names = _property_names(spec.submission_schema) | _property_names(spec.gold_schema)
    return frozenset(answer_names - _property_names(spec.input_schema))


def answer_key_problems(subtask: str, record: dict) -> list[Problem]:
    """One problem per answer key found in ``record`` (field path named), any depth."""
    refused = answer_keys(subtask)
    problems = [
        problem("answer_in_input", key)
        for key in record
        if key in ALWAYS_ANSWER_KEYS
    ]
    pending: list[tuple[str, object]] = [("", record)]
    while pending:
        path, node = pending.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                field = f"{path}.{key}" if path else key
                if key in refused:
                    problems.append(problem("answer_in_input", field))
                pending.append((field, value))
        elif isinstance(node, list):
            pending.extend((f"{path}[{index}]", value) for index, value in enumerate(node))
    return sorted(problems, key=lambda problem: problem.field)


def annotator_payload(subtask: str, payload: dict) -> dict:
    """``payload`` with only the fields the subtask's input schema names (at every depth)."""
    return _project(payload, get_subtask(subtask).input_schema)


def _project(value: object, schema: dict) -> object:
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        return {key: _project(item, properties[key]) for key, item in value.items() if key in properties}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_project(item, schema["items"]) for item in value]
    return value


# The markup of the input texts, dropped from a preview: wsd's "[[TARGET]]word[[/TARGET]]",
# coreference's "[A]...[/A]", commas' " [1]"; a number of numerals "[[16500]]" keeps its digits.
_TARGET_MARKS = re.compile(r"\[\[/?TARGET\]\]|\[/?[A-Z]\]| ?\[\d+\]")
_NUMBER_MARKS = re.compile(r"\[\[(.*?)\]\]")
PREVIEW_CHARACTERS = 140


def item_text(subtask: str, payload: dict) -> str:
    """The item's first text, as a reader knows the item (where an id tells them nothing): the
    first string of its item fields, depth first, that is no id (a discourse passage's first
    unit), its markup dropped, cut at PREVIEW_CHARACTERS."""
    pending: list[object] = [annotator_payload(subtask, payload)]
    while pending:
        value = pending.pop(0)
        if isinstance(value, dict):
            pending[:0] = [field for key, field in value.items() if key != "id" and not key.endswith("_id")]
        elif isinstance(value, list):
            pending[:0] = value
        elif isinstance(value, str) and value.strip():
            text = _NUMBER_MARKS.sub(r"\1", _TARGET_MARKS.sub("", value)).strip()
            return text if len(text) <= PREVIEW_CHARACTERS else text[: PREVIEW_CHARACTERS - 1].rstrip() + "…"
    return ""
