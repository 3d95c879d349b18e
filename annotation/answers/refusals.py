"""What makes an answer unfit to store, whoever sends it (an annotator's save, a training answer,
an adjudicator's edited decision): its shape by the scorer's checks, then the rules that guide
a person answering. One pipeline for every writer of answers."""

from __future__ import annotations

from annotation.core.problems import problem
from annotation.core.storable import unstorable_fields
from annotation.subtasks import limits
from annotation.subtasks.problem_texts import for_annotator
from annotation.subtasks.rules import rule_refusals
from scoring.problems import Problem
from scoring.validation import answer_problems


def _shape_refusals(subtask: str, answer: object, payload: dict) -> list[Problem]:
    """What no answer may be, draft or submitted: empty, not an object, too deep, unstorable,
    beyond the size limits of its item."""
    if answer is None or answer == {}:
        return [problem("no_answer")]
    if not isinstance(answer, dict):
        return [problem("not_object/answer")]
    # Depth first: it bounds what every later check walks through.
    if limits.too_deep(answer):
        return [limits.depth_problem("answer")]
    unstorable_found = [problem("unstorable/value", field) for field in unstorable_fields(answer)]
    return unstorable_found or limits.answer_limit_problems(subtask, answer, payload)


def answer_refusals(subtask: str, answer: object, payload: dict) -> list[Problem]:
    """Why ``answer`` cannot be a submitted answer of the item ``payload`` (empty: it can):
    the limits, the subtask's answer check and the app's answer rules. Adjudicated answers pass it too."""
    found = _shape_refusals(subtask, answer, payload) or [
        for_annotator(problem) for problem in answer_problems(subtask, answer, payload)
    ]
    return found or rule_refusals(subtask, answer, payload)
