"""The sizes the application stores, per subtask: one place for every limit.

``scoring`` judges a model's submission by the benchmark's rules only; these limits are the
application's, applied by the save service (answers, flag comments) and the import service
(item records), each refusal naming the field:

- an imported line has at most ``MAX_LINE_BYTES`` bytes (read no further);
- any stored JSON value (item record, answer) is nested at most ``MAX_DEPTH`` levels;
- every string of an item record has at most ``MAX_ITEM_TEXT`` characters;
- a flag comment has at most ``MAX_COMMENT`` characters;
- answers, derived from their item by the subtask's ``answer_limits`` part
  (``annotation/subtasks/<key>/answers.py``: a longest text per field, e.g. a correction at
  most twice the sentence plus ``TEXT_MARGIN``; a longest label; entries per list); by default,
  and for every string the subtask names no limit of, at most ``MAX_LABEL`` characters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from annotation.core.problems import problem
from annotation.subtasks import part
from scoring.problems import Problem

MAX_LINE_BYTES = 4 * 1024 * 1024


MAX_DEPTH = 16


MAX_ITEM_TEXT = 200_000


MAX_COMMENT = 2_000


MAX_LABEL = 64


TEXT_MARGIN = 100


@dataclasses.dataclass(frozen=True)
class AnswerLimits:
    """What one answer to one item may hold (a subtask's ``answer_limits`` part)."""

    text_limits: dict[str, int] = dataclasses.field(default_factory=dict)  # field path -> its longest string
    label_limit: int = MAX_LABEL  # the longest of every other string
    problems: list[Problem] = dataclasses.field(default_factory=list)  # the answer's other limits broken (entries...)


def no_answer_limits(answer: dict, item: dict) -> AnswerLimits:
    return AnswerLimits()


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
    return problem("too_deep/value", field, max=MAX_DEPTH)


def item_problems(record: dict) -> list[Problem]:
    """The limits of an input record (any subtask)."""
    if too_deep(record):
        return [depth_problem("record")]
    return [problem("too_long/text", field, max=MAX_ITEM_TEXT) for field, text in strings(record)
            if len(text) > MAX_ITEM_TEXT]


def comment_problems(comment: str) -> list[Problem]:
    if len(comment) > MAX_COMMENT:
        return [problem("too_long/text", "comment", max=MAX_COMMENT)]
    return []


def answer_limit_problems(subtask: str, answer: dict, item: dict) -> list[Problem]:
    """The limits of one answer (draft or submitted) to ``item``."""
    if too_deep(answer):
        return [depth_problem("answer")]
    limits = part(subtask, "answer_limits", no_answer_limits)(answer, item)
    problems = list(limits.problems)
    for field, text in strings(answer):
        limit = limits.text_limits.get(field, limits.label_limit)
        if len(text) > limit:
            problems.append(problem("too_long/text", field, max=limit))
    return problems
