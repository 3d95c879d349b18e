"""The sizes the application stores, per subtask: one place for every limit.

``scoring`` judges a model's submission by the benchmark's rules only; these limits are the
application's, applied by the save service (answers, flag comments) and the import service
(item records), each refusal naming the field:

- an imported line has at most ``MAX_LINE_BYTES`` bytes (read no further);
- any stored JSON value (item record, answer) is nested at most ``MAX_DEPTH`` levels;
- every string of an item record has at most ``MAX_ITEM_TEXT`` characters;
- a flag comment has at most ``MAX_COMMENT`` characters;
- answers, derived from their item:
  - morphosyntax: ``corrected_sentence`` at most twice the sentence plus ``TEXT_MARGIN``;
  - numerals: ``answer`` at most ``NUMERAL_CHARACTERS_PER_DIGIT`` characters per digit of the
    target plus ``TEXT_MARGIN``;
  - commas: ``commas`` and ``optional`` at most as many entries as the sentence has
    positions, each entry within 1..(number of positions) when it is an integer;
  - discourse: at most as many entries in ``discourse_units`` as the passage has units;
  - every other string of an answer (labels, du_ids, relations) at most ``MAX_LABEL``
    characters, or the longest du_id of the passage if that is longer.
"""

from __future__ import annotations

from collections.abc import Iterator

from annotation.subtasks.widgets.markup import NUMERAL_TARGET, POSITION
from scoring.problems import Problem

MAX_LINE_BYTES = 4 * 1024 * 1024


MAX_DEPTH = 16


MAX_ITEM_TEXT = 200_000


MAX_COMMENT = 2_000


MAX_LABEL = 64


TEXT_MARGIN = 100


NUMERAL_CHARACTERS_PER_DIGIT = 40


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays or objects more than ``limit`` levels."""
    pending = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            pending.extend((child, depth + 1) for child in children)
    return False


def strings(value: object, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, string) for every string value of ``value``; call only on values that
    are not ``too_deep`` (the walk is iterative all the same)."""
    pending = [(path, value)]
    while pending:
        field, node = pending.pop()
        if isinstance(node, str):
            yield field, node
        elif isinstance(node, dict):
            pending.extend((f"{field}.{key}" if field else key, child) for key, child in node.items())
        elif isinstance(node, list):
            pending.extend((f"{field}[{index}]", child) for index, child in enumerate(node))


def depth_problem(field: str) -> Problem:
    return Problem(field, f"is nested more than {MAX_DEPTH} levels deep", "too_deep")


def item_problems(record: dict) -> list[Problem]:
    """The limits of an input record (any subtask)."""
    if too_deep(record):
        return [depth_problem("record")]
    return [
        Problem(field, f"is longer than {MAX_ITEM_TEXT} characters", "too_long")
        for field, text in strings(record)
        if len(text) > MAX_ITEM_TEXT
    ]


def comment_problems(comment: str) -> list[Problem]:
    if len(comment) > MAX_COMMENT:
        return [Problem("comment", f"is longer than {MAX_COMMENT} characters", "too_long")]
    return []


def answer_limit_problems(subtask: str, answer: dict, item: dict) -> list[Problem]:
    """The limits of one answer (draft or submitted) to ``item``."""
    if too_deep(answer):
        return [depth_problem("answer")]
    text_limits: dict[str, int] = {}
    problems: list[Problem] = []
    label_limit = MAX_LABEL
    if subtask == "morphosyntax":
        text_limits["corrected_sentence"] = 2 * len(item.get("sentence", "")) + TEXT_MARGIN
    elif subtask == "numerals":
        digits = sum(len(match.group("body")) for match in NUMERAL_TARGET.finditer(item.get("sentence", "")))
        text_limits["answer"] = NUMERAL_CHARACTERS_PER_DIGIT * digits + TEXT_MARGIN
    elif subtask == "commas":
        positions = len(POSITION.findall(item.get("sentence_with_positions", "")))
        problems += _position_problems(answer, positions)
    elif subtask == "discourse":
        units = item.get("discourse_units", [])
        label_limit = max([MAX_LABEL, *(len(str(unit.get("du_id", ""))) for unit in units if isinstance(unit, dict))])
        entries = answer.get("discourse_units")
        if isinstance(entries, list) and len(entries) > len(units):
            problems.append(Problem("discourse_units", f"has more than {len(units)} entries", "too_many"))
    for field, text in strings(answer):
        limit = text_limits.get(field, label_limit)
        if len(text) > limit:
            problems.append(Problem(field, f"is longer than {limit} characters", "too_long"))
    return problems


def _position_problems(answer: dict, positions: int) -> list[Problem]:
    problems = []
    for name in ("commas", "optional"):
        entries = answer.get(name)
        if not isinstance(entries, list):
            continue
        if len(entries) > positions:
            problems.append(Problem(name, f"has more than {positions} entries", "too_many"))
        elif any(isinstance(entry, int) and not isinstance(entry, bool) and not 1 <= entry <= positions
                 for entry in entries):
            problems.append(Problem(name, f"names a position outside 1..{positions}", "unknown_marker"))
    return problems
