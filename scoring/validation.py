"""Checking input, gold and submission files, and single answers.

None of these functions raises on bad data: they return ``Problem``s. File-level
functions return ``(records, problems)`` where ``records`` are the JSON objects read
(in file order) and every problem carries the file and, where there is one, the line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from scoring.fastschema import Predicate, compile_schema
from scoring.jsonl import JSON_TYPES, Line, json_type_name, read_jsonl
from scoring.problems import Problem, problem
from scoring.subtasks import Subtask, get_subtask

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError


@dataclass
class CompiledSchema:
    """A schema compiled once: the fast yes-check of ``scoring.fastschema`` (None when
    the schema uses keywords it does not cover) and jsonschema's validator, which
    decides and explains whatever the yes-check does not accept."""

    schema: dict
    quick: Predicate | None

    @cached_property
    def full(self) -> Draft202012Validator:
        # Imported on first need: importing jsonschema takes about 0.1 s, and a file of
        # valid records never needs it.
        from jsonschema import Draft202012Validator

        return Draft202012Validator(self.schema)


@lru_cache(maxsize=None)
def validator(key: str, kind: str) -> CompiledSchema:
    """The compiled schema of a subtask, built once per process.

    ``kind``: "input", "output" (a submission line), "gold", or "answer" (the
    submission line's answer fields without the id).
    """
    subtask = get_subtask(key)
    schema = {"input": subtask.input_schema, "output": subtask.submission_schema, "gold": subtask.gold_schema}.get(kind)
    if kind == "answer":
        schema = dict(subtask.submission_schema)
        schema["properties"] = {name: rule for name, rule in schema["properties"].items() if name != "id"}
        schema["required"] = [name for name in schema["required"] if name != "id"]
    if schema is None:
        raise ValueError(f"unknown schema kind {kind!r}")
    return CompiledSchema(schema, compile_schema(schema))


def schema_problems(compiled: CompiledSchema, record: object) -> list[Problem]:
    """One problem per schema violation, each naming the offending field."""
    if compiled.quick is not None and compiled.quick(record):
        return []
    problems = []
    required_seen: set[tuple[str, tuple]] = set()
    for error in compiled.full.iter_errors(record):
        if error.validator == "required":
            # jsonschema says one error per missing field, each naming it only in its English
            # message: all the object's missing fields are said with the first of them.
            seen = (_field(error.absolute_path), tuple(error.validator_value))
            if seen in required_seen:
                continue
            required_seen.add(seen)
        problems.extend(_error_problems(error))
    return sorted(problems, key=lambda problem: problem.field)


def _field(path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _error_problems(error: ValidationError) -> list[Problem]:
    path = _field(error.absolute_path)
    if error.validator == "required":
        return [problem("required", _join(path, name))
                for name in error.validator_value if isinstance(error.instance, dict) and name not in error.instance]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        return [problem("unexpected_field", _join(path, name))
                for name in error.instance if name not in allowed]
    return [_schema_problem(path or "record", error)]


def _schema_problem(field: str, error: ValidationError) -> Problem:
    if error.validator == "enum":
        shown = ", ".join("null" if value is None else str(value) for value in error.validator_value)
        return problem("enum", field, value=error.instance, allowed=shown)
    if error.validator == "type":
        expected = error.validator_value if isinstance(error.validator_value, str) else " or ".join(error.validator_value)
        return problem("type", field, expected=expected, found=json_type_name(error.instance))
    if error.validator == "minLength" and error.validator_value == 1:
        return problem("minLength", field)
    if error.validator == "minItems" and error.validator_value == 1:
        return problem("minItems", field)
    if error.validator == "uniqueItems":
        return problem("uniqueItems", field)
    if error.validator == "minimum":
        return problem("minimum", field, value=error.instance, minimum=error.validator_value)
    return problem("schema", field, code=str(error.validator), detail=error.message)


def sorted_by_line(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda problem: (problem.line is None, problem.line or 0))


def repeated_id(item_id: str, first_line: Mapping[str, int], filename: str | None, line: int) -> Problem | None:
    """The problem of ``item_id`` on ``line`` of ``filename`` when ``first_line`` (id -> the line
    it was first seen on) holds it already, else None. Which ids it holds is the caller's: every
    id of the earlier lines (``_ids``), only those also in the gold file
    (``scoring.evaluate.read_predictions``), or those of the earlier chunks of a file read in chunks."""
    if item_id not in first_line:
        return None
    return problem("duplicate_id", "id", filename, line, id=item_id, first_line=first_line[item_id])


def repeated_ids(lines: list[Line], filename: str | None, first_line: dict[str, int]) -> list[Problem]:
    """The repeats among the string ids of ``lines`` (a non-string id is left to the schema):
    each id already in ``first_line`` (id -> the line it was first on) is a problem, each new
    one is added to it, so that a file read in chunks keeps one ``first_line`` for them all."""
    problems = []
    for line in lines:
        item_id = line.record.get("id")
        if not isinstance(item_id, str):
            continue
        repeated = repeated_id(item_id, first_line, filename, line.number)
        if repeated is not None:
            problems.append(repeated)
        else:
            first_line[item_id] = line.number
    return problems


def _ids(lines: list[Line], filename: str, problems: list[Problem]) -> dict[str, int]:
    """Map id -> first line; adds a problem for each repeated id."""
    first_line: dict[str, int] = {}
    problems += repeated_ids(lines, filename, first_line)
    return first_line


def without_id(record: dict) -> dict:
    return {name: value for name, value in record.items() if name != "id"}


def check_inputs(key: str, data: bytes, filename: str) -> tuple[list[dict], list[Problem]]:
    """An inputs.jsonl: JSON, the input schema, the subtask's input checks, unique ids."""
    lines, problems = read_jsonl(data, filename)
    problems += input_line_problems(key, lines, filename)
    _ids(lines, filename, problems)
    return [line.record for line in lines], sorted_by_line(problems)


def input_line_problems(key: str, lines: list[Line], filename: str) -> list[Problem]:
    """``check_inputs`` for lines already read, each alone: the input schema and the subtask's
    input checks (ids are the caller's: ``repeated_id``)."""
    subtask = get_subtask(key)
    compiled = validator(key, "input")
    problems: list[Problem] = []
    for line in lines:
        found = schema_problems(compiled, line.record) or subtask.check_input(line.record)
        problems.extend(problem.at(filename, line.number) for problem in found)
    return problems


def read_answer_file(subtask: Subtask, kind: str, data: bytes, filename: str,
                     inputs: list[dict] | None) -> tuple[list[Line], dict[str, int], list[Problem]]:
    """Shared by gold and submission files: JSON, schema, ids, and each answer against its
    item (or, without inputs, its own consistency). Returns the lines, id -> first line,
    and the problems."""
    lines, problems = read_jsonl(data, filename)
    answered, found = check_answer_lines(subtask, kind, lines, filename, inputs)
    return lines, answered, problems + found


def check_answer_lines(subtask: Subtask, kind: str, lines: list[Line], filename: str,
                       inputs: list[dict] | None) -> tuple[dict[str, int], list[Problem]]:
    """``read_answer_file`` for lines already read: schema, ids, and each answer against its
    item. Returns id -> first line and the problems."""
    problems = answer_line_problems(subtask, kind, lines, filename, inputs)
    answered = _ids(lines, filename, problems)
    return answered, problems


def answer_line_problems(subtask: Subtask, kind: str, lines: list[Line], filename: str,
                         inputs: list[dict] | None) -> list[Problem]:
    """``check_answer_lines`` without the ids' repeats (the caller's: ``repeated_id``): the
    schema and each answer against its item."""
    problems: list[Problem] = []
    compiled = validator(subtask.key, kind)
    items = None if inputs is None else {record.get("id"): record for record in inputs if isinstance(record, dict)}
    for line in lines:
        found = schema_problems(compiled, line.record)
        item_id = line.record.get("id")
        if items is not None and isinstance(item_id, str) and item_id not in items:
            found.append(problem("unknown_id", "id", id=item_id))
        elif not found:
            found = subtask.check_answer(without_id(line.record), None if items is None else items[item_id])
        problems.extend(problem.at(filename, line.number) for problem in found)
    return problems


def check_gold(key: str, data: bytes, filename: str, inputs: list[dict]) -> tuple[list[dict], list[Problem]]:
    """A gold file: the gold schema, every gold id an input id and only once, and
    the references of each gold line (markers, DUs) exist in its item.

    ``inputs`` are records that passed ``check_inputs`` (answers are checked against them)."""
    lines, _, problems = read_answer_file(get_subtask(key), "gold", data, filename, inputs)
    return [line.record for line in lines], sorted_by_line(problems)


def check_submission(key: str, data: bytes, filename: str, inputs: list[dict] | None = None,
                     partial: bool = False) -> tuple[list[dict], list[Problem]]:
    """A submission file: the submission schema, unique ids and each answer's own checks;
    with ``inputs``, every id an input id and each answer checked against its item, and
    (unless ``partial``) every input answered."""
    lines, answered, problems = read_answer_file(get_subtask(key), "output", data, filename, inputs)
    if inputs is not None and not partial:
        for record in inputs:
            item_id = record.get("id") if isinstance(record, dict) else None
            if isinstance(item_id, str) and item_id not in answered:
                problems.append(problem("missing_answer", "id", filename, id=item_id))
    return [line.record for line in lines], sorted_by_line(problems)


def answer_problems(key: str, answer: dict, item: dict) -> list[Problem]:
    """The full check of one answer (its answer fields, no id) against its input record."""
    found = schema_problems(validator(key, "answer"), answer)
    return found or get_subtask(key).check_answer(answer, item)


def draft_problems(key: str, answer: object) -> list[Problem]:
    """The check of a draft, which may be incomplete: every value present has the type the
    answer schema gives it, down to the leaves (items of lists, fields of objects), and no
    object has a field its schema does not list; missing fields, nulls and missing list
    items are fine."""
    if not isinstance(answer, dict):
        return [problem("type/object", "answer")]
    return _draft_value_problems(validator(key, "answer").schema, answer, "")


def _draft_value_problems(rule: dict, value: object, path: str) -> list[Problem]:
    if value is None:
        return []
    types = _json_types(rule)
    if types and not any(JSON_TYPES[name](value) for name in types):
        shown = " or ".join(name for name in types if name != "null")
        return [problem("type/or_null", path or "answer", expected=shown)]
    problems = []
    if isinstance(value, dict) and "properties" in rule:
        properties = rule["properties"]
        closed = rule.get("additionalProperties") is False
        for name, field_value in value.items():
            field = _join(path, name)
            if name in properties:
                problems += _draft_value_problems(properties[name], field_value, field)
            elif closed:
                problems.append(problem("unexpected_field" if path else "unexpected_field/answer", field))
    elif isinstance(value, list) and isinstance(rule.get("items"), dict):
        for index, item in enumerate(value):
            problems += _draft_value_problems(rule["items"], item, f"{path}[{index}]")
    return problems


def _json_types(rule: dict) -> list[str]:
    """The JSON types a schema rule allows: its ``type``, or the types of its ``enum`` members."""
    if "type" in rule:
        return [rule["type"]] if isinstance(rule["type"], str) else list(rule["type"])
    if "enum" in rule:
        return list(dict.fromkeys(json_type_name(member) for member in rule["enum"]))
    return []


def submission_line(key: str, item_id: str, answer: dict) -> dict:
    """``{"id": item_id, **normalised answer fields}`` in the benchmark's field order."""
    subtask = get_subtask(key)
    normalised = subtask.normalise(answer)
    return {"id": item_id, **{name: normalised.get(name) for name in subtask.answer_fields}}
