"""Subtask 3, wsd: which of four candidate sentences A-D uses the [[TARGET]] word in the
sense of the reference sentence. Answer and metric: scoring.choice."""

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
           "NUMBER", "TITLE", "TARGET", "TARGET_OPEN", "TARGET_CLOSE", "check_input"]

NUMBER = 3
TITLE = "Same sense in context"

TARGET_OPEN, TARGET_CLOSE = "[[TARGET]]", "[[/TARGET]]"
# The target word: [[TARGET]]zamku[[/TARGET]].
TARGET = re.compile(re.escape(TARGET_OPEN) + r"(?P<body>.*?)" + re.escape(TARGET_CLOSE), re.DOTALL)


def _target_problem(field: str, text: str) -> Problem | None:
    opened, closed = text.count(TARGET_OPEN), text.count(TARGET_CLOSE)
    if opened != 1 or closed != 1:
        return problem("bad_target/count", field, opening=TARGET_OPEN, closing=TARGET_CLOSE, opened=opened, closed=closed)
    start, end = text.index(TARGET_OPEN) + len(TARGET_OPEN), text.index(TARGET_CLOSE)
    if end <= start or not text[start:end].strip():
        return problem("bad_target/order", field, opening=TARGET_OPEN, closing=TARGET_CLOSE)
    return None


def check_input(record: dict) -> list[Problem]:
    texts = [("reference_sentence", record["reference_sentence"])]
    texts += [(f"candidates.{label}", record["candidates"][label]) for label in LABELS]
    return [problem for field, text in texts if (problem := _target_problem(field, text))]
