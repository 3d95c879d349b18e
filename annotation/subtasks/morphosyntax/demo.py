"""A demo rater's slip in morphosyntax: an error seen where there is none, a missed one, or a
correction that corrects nothing."""

from __future__ import annotations

import random

from scoring.subtasks.morphosyntax import CORRECT, INCORRECT


def demo_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    if answer["answer"] == CORRECT:  # sees an error where there is none
        return {"answer": INCORRECT, "corrected_sentence": item["sentence"].replace(",", "", 1)}
    if rng.random() < 0.5:  # misses the error
        return {"answer": CORRECT, "corrected_sentence": ""}
    return {"answer": INCORRECT, "corrected_sentence": item["sentence"]}  # a correction that corrects nothing
