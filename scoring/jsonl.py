"""Reading and writing JSON Lines files: one JSON object per line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from scoring.problems import Problem, problem

_BOM = b"\xef\xbb\xbf"
# What json.dumps(record, ensure_ascii=False) uses, made once rather than for every line.
_ENCODER = json.JSONEncoder(ensure_ascii=False)


@dataclass(frozen=True)
class Line:
    """One JSON object read from ``number`` (1-based, blank lines counted)."""

    number: int
    record: dict


def text_lines(data: bytes, filename: str, problems: list[Problem]) -> Iterator[tuple[int, str]]:
    """(number, text) of every line of ``data`` that is not blank: UTF-8 with or without a
    byte-order mark, LF or CRLF, numbers 1-based with blank lines counted; a line that is not
    UTF-8 is added to ``problems`` instead."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip():
            continue
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(problem("encoding", "line", filename, number, byte=error.start + 1))


def read_jsonl(data: bytes, filename: str) -> tuple[list[Line], list[Problem]]:
    """Parse ``data`` as JSONL; never raises on bad content.

    UTF-8, with or without a byte-order mark; LF or CRLF line ends; blank lines
    are skipped but still counted, so line numbers match what an editor shows.
    Each line must be a JSON object; every fault names the file and the line.
    """
    lines: list[Line] = []
    problems: list[Problem] = []
    for number, text in text_lines(data, filename, problems):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            problems.append(problem("json", "json", filename, number, detail=error.msg, column=error.colno))
            continue
        except ValueError:  # the one other ValueError: an integer longer than Python reads
            problems.append(problem("json/digits", "json", filename, number))
            continue
        except RecursionError:
            problems.append(problem("json/depth", "json", filename, number))
            continue
        if not isinstance(record, dict):
            problems.append(problem("not_object", "line", filename, number, found=json_type_name(record)))
            continue
        lines.append(Line(number, record))
    return lines, problems


# The JSON Schema type names and what a parsed JSON value of each type is in Python (JSON's
# true is no integer; an integer is also a number).
JSON_TYPES: dict[str, Callable[[object], bool]] = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "null": lambda value: value is None,
}


def json_type_name(value: object) -> str:
    """The JSON name of a parsed value's type: string, integer, number, boolean, array, object, null."""
    return next(name for name, is_of_type in JSON_TYPES.items() if is_of_type(value))


def jsonl_bytes(records: list[dict]) -> bytes:
    """JSON Lines in UTF-8, one record a line, Polish letters as they are."""
    encode = _ENCODER.encode
    return b"".join([encode(record).encode("utf-8") + b"\n" for record in records])
