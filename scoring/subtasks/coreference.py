"""Subtask 4, coreference: which of the mentions [A]-[D] of a context the target mention [T]
refers to. Answer and metric: scoring.choice."""

from __future__ import annotations

import re

from scoring.choice import (
    ANSWER_FIELDS,
    COUNT_NAMES,
    ITEM_FIGURE,
    LABELS,
    agreement_figures,
    answer_value,
    breakdown,
    check_answer,
    combine,
    dawid_skene_answer,
    dawid_skene_units,
    disagreement_kinds,
    line_counts,
    majority,
    normalise,
)
from scoring.problems import Problem, problem

__all__ = ["ANSWER_FIELDS", "COUNT_NAMES", "ITEM_FIGURE", "LABELS", "check_answer", "combine", "line_counts", "normalise",
           "agreement_figures", "answer_value", "majority", "breakdown", "disagreement_kinds",
           "dawid_skene_units", "dawid_skene_answer",
           "NUMBER", "TITLE", "TARGET_LABEL", "MENTION_LABELS", "MENTION", "TARGET_MENTION", "marks", "check_input"]

NUMBER = 4
TITLE = "Coreference antecedent selection"

TARGET_LABEL = "T"
MENTION_LABELS = (TARGET_LABEL, *LABELS)


def marks(label: str) -> tuple[str, str]:
    """The opening and closing marker of a mention: ("[A]", "[/A]")."""
    return f"[{label}]", f"[/{label}]"


def _mention_pattern(labels: str) -> re.Pattern[str]:
    return re.compile(r"\[(?P<label>[" + labels + r"])\](?P<body>.*?)\[/(?P=label)\]", re.DOTALL)


# Any mention, [T]która[/T] or [A]basenu[/A] ... [D]...[/D]; mentions may nest.
MENTION = _mention_pattern("".join(MENTION_LABELS))
TARGET_MENTION = _mention_pattern(TARGET_LABEL)


def _mention(context: str, label: str) -> tuple[str | None, str | None]:
    """(the text inside [label]..[/label], or None; its problem in the context, or None)."""
    opening, closing = marks(label)
    opened, closed = context.count(opening), context.count(closing)
    if opened != 1 or closed != 1:
        return None, problem("bad_mention", "context", opening=opening, closing=closing, opened=opened, closed=closed)
    start, end = context.index(opening) + len(opening), context.index(closing)
    if end < start:
        return None, problem("bad_mention/order", "context", opening=opening, closing=closing)
    return context[start:end], None


def check_input(record: dict) -> list[Problem]:
    problems = []
    context, candidates = record["context"], record["candidates"]
    for label in MENTION_LABELS:
        text, error = _mention(context, label)
        if error:
            problems.append(error)
        elif label != TARGET_LABEL and text != candidates[label]:
            problems.append(problem("candidate_mismatch", f"candidates.{label}", label=label, text=text))
    return problems
