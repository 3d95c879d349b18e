"""What a discourse answer may hold: no more entries than the passage has units, and labels as
long as the passage's longest du_id."""

from __future__ import annotations

from annotation.core.problems import problem
from annotation.subtasks.limits import MAX_LABEL, AnswerLimits


def answer_limits(answer: dict, item: dict) -> AnswerLimits:
    units = item.get("discourse_units", [])
    label_limit = max([MAX_LABEL, *(len(str(unit.get("du_id", ""))) for unit in units if isinstance(unit, dict))])
    entries = answer.get("discourse_units")
    problems = []
    if isinstance(entries, list) and len(entries) > len(units):
        problems.append(problem("too_many/entries", "discourse_units", max=len(units)))
    return AnswerLimits(label_limit=label_limit, problems=problems)
