"""Reading JSON Lines files: one JSON object per line."""

from __future__ import annotations

import json
from dataclasses import dataclass

from scoring.problems import Problem

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Line:
    """One JSON object read from ``number`` (1-based, blank lines counted)."""

    number: int
    record: dict


def read_jsonl(data: bytes, filename: str) -> tuple[list[Line], list[Problem]]:
    """Parse ``data`` as JSONL; never raises on bad content.

    UTF-8, with or without a byte-order mark; LF or CRLF line ends; blank lines
    are skipped but still counted, so line numbers match what an editor shows.
    Each line must be a JSON object; every fault names the file and the line.
    """
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    lines: list[Line] = []
    problems: list[Problem] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(Problem("line", f"not valid UTF-8 (byte {error.start + 1})", "encoding", filename, number))
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            problems.append(Problem("json", f"invalid JSON: {error.msg} (column {error.colno})", "json", filename, number))
            continue
        except ValueError:  # the one other ValueError: an integer longer than Python reads
            problems.append(Problem("json", "unreadable JSON: a number with too many digits", "json", filename, number))
            continue
        except RecursionError:
            problems.append(Problem("json", "unreadable JSON: nested too deeply", "json", filename, number))
            continue
        if not isinstance(record, dict):
            problems.append(Problem("line", f"expected a JSON object, found {json_type_name(record)}", "not_object", filename, number))
            continue
        lines.append(Line(number, record))
    return lines, problems


def json_type_name(value: object) -> str:
    """The JSON name of a parsed value's type: string, integer, number, boolean, array, object, null."""
    if isinstance(value, bool):
        return "boolean"
    for python_type, name in ((str, "string"), (int, "integer"), (float, "number"), (list, "array"), (dict, "object")):
        if isinstance(value, python_type):
            return name
    return "null"
