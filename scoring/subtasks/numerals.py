"""Subtask 2, numerals: the number [[digits]] of a sentence written out in words, in the right form."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from scoring.metrics import combined, ratio
from scoring.problems import Problem, problem
from scoring.reliability import AnswerTable, Figures, majority_by_value, nominal_alpha, observed_agreement
from scoring.text import clean_text

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

NUMBER = 2
TITLE = "Contextual numeral inflection"
ANSWER_FIELDS = ("answer",)

TARGET_OPEN, TARGET_CLOSE = "[[", "]]"
# The one target of a sentence: [[16500]].
TARGET = re.compile(r"\[\[(?P<body>[0-9]+)\]\]")


def fold(text: str) -> str:
    """``clean_text`` and lower case: how answers and accepted forms are compared."""
    return clean_text(text).lower()


def check_input(record: dict) -> list[Problem]:
    sentence = record["sentence"]
    targets = TARGET.findall(sentence)
    if len(targets) != 1:
        return [problem("bad_target", "sentence", count=len(targets))]
    if sentence.count(TARGET_OPEN) != 1 or sentence.count(TARGET_CLOSE) != 1:
        return [problem("bad_target/other", "sentence")]
    return []


def check_answer(answer: dict, item: dict | None) -> list[Problem]:
    written = answer.get("answer")
    if isinstance(written, str) and not written.strip():
        return [problem("blank", "answer")]
    return []


def normalise(answer: dict) -> dict:
    result = dict(answer)
    if isinstance(result.get("answer"), str):
        result["answer"] = fold(result["answer"])
    return result


# Metric: exact match (main): the answer, normalised (NFC, lower case, white space collapsed,
# stripped), equals one of the gold ``answers`` normalised the same way.
# An answer is right when the task is done in full (see ITEM_FIGURE in the registry).
ITEM_FIGURE = "exact_match"
COUNT_NAMES = ("matched", "missing")


def line_counts(gold: dict, prediction: dict | None) -> tuple[int, ...]:
    if prediction is None:
        return (0, 1)
    written = normalise(prediction).get("answer")
    return (int(isinstance(written, str) and written in {fold(form) for form in gold["answers"]}), 0)


def combine(totals: tuple[int, ...], n_lines: int) -> dict:
    matched, missing = totals
    return {
        "score": ratio(matched, n_lines),
        "exact_match": ratio(matched, n_lines),
        "n_gold": n_lines,
        "n_missing": missing,
    }


# Agreement: nominal alpha and observed agreement on the normalised answer; the majority
# answer is the normalised answer more than half of the answers give.

def answer_value(answer: dict) -> str:
    return answer["answer"]


def agreement_figures(table: AnswerTable, figures: Figures) -> None:
    counts = [Counter(answer["answer"] for answer in answers) for _, answers in table.answered]
    figures.add("alpha", lambda: nominal_alpha(counts))
    figures.add("observed_agreement", lambda: observed_agreement(counts))


def majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    return majority_by_value(answers, answer_value)


# The gold line lists every accepted form: the first stands for them all where one answer is shown.

def gold_answer(gold: dict) -> dict:
    return {"answer": gold["answers"][0]}


def accepted_forms(gold: dict) -> list[str]:
    return list(gold["answers"])


def breakdown(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    return {"exact_match": combined(subtask, rows)["exact_match"]}


def disagreement_kinds(answers: list[dict], item: dict) -> list[str]:
    return ["form"]
