"""A toy seventh subtask: is the word a palindrome? Only what every subtask must have; every
optional part (breakdown, gold answer, pair agreement, disagreement kinds...) is the default."""

from __future__ import annotations

from collections import Counter

from scoring.metrics import ratio
from scoring.problems import Problem
from scoring.reliability import AnswerTable, Figures, majority_by_value, observed_agreement

NUMBER = 7
TITLE = "Is the word a palindrome?"
ANSWER_FIELDS = ("answer",)
COUNT_NAMES = ("correct", "missing")
ITEM_FIGURE = "score"


def check_input(record: dict) -> list[Problem]:
    if " " in record["word"]:
        return [Problem("word", "must be one word", "not_a_word")]
    return []


def check_answer(answer: dict, item: dict | None) -> list[Problem]:
    return []


def normalise(answer: dict) -> dict:
    result = dict(answer)
    if isinstance(result.get("answer"), str):
        result["answer"] = result["answer"].strip().lower()
    return result


def line_counts(gold: dict, prediction: dict | None) -> tuple[int, ...]:
    if prediction is None:
        return (0, 1)
    return (int(normalise(prediction).get("answer") == gold["answer"]), 0)


def combine(totals: tuple[int, ...], n_lines: int) -> dict:
    correct, missing = totals
    return {"score": ratio(correct, n_lines), "accuracy": ratio(correct, n_lines), "n_gold": n_lines, "n_missing": missing}


def answer_value(answer: dict) -> str:
    return answer["answer"]


def agreement_figures(table: AnswerTable, figures: Figures) -> None:
    counts = [Counter(answer["answer"] for answer in answers) for _, answers in table.answered]
    figures.add("observed_agreement", lambda: observed_agreement(counts))


def majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    return majority_by_value(answers, answer_value)
