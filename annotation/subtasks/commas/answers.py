"""What a commas answer may hold: no more positions than the sentence has, each one of them."""

from __future__ import annotations

from annotation.core.problems import problem
from annotation.subtasks.limits import AnswerLimits
from scoring.subtasks.commas import MARKER


def answer_limits(answer: dict, item: dict) -> AnswerLimits:
    """``commas`` and ``optional`` at most as many entries as the sentence has positions, each
    entry within 1..(number of positions) when it is an integer."""
    positions = len(MARKER.findall(item.get("sentence_with_positions", "")))
    problems = []
    for name in ("commas", "optional"):
        entries = answer.get(name)
        if not isinstance(entries, list):
            continue
        if len(entries) > positions:
            problems.append(problem("too_many/entries", name, max=positions))
        elif any(isinstance(entry, int) and not isinstance(entry, bool) and not 1 <= entry <= positions
                 for entry in entries):
            problems.append(problem("unknown_marker/position", name, count=positions))
    return AnswerLimits(problems=problems)
