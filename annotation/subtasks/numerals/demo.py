"""A demo rater's slip in numerals: another case of the numeral."""

from __future__ import annotations

import random

# Endings of Polish numeral forms that people confuse (the case of the phrase).
NUMERAL_SLIPS = (("ego", "ym"), ("ym", "ego"), ("ch", "m"), ("u", "ch"), ("ma", "u"), ("ej", "ą"), ("ą", "ej"))


def demo_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    words = answer["answer"].split(" ")
    for ending, replacement in NUMERAL_SLIPS:
        if words[-1].endswith(ending):
            words[-1] = words[-1][: -len(ending)] + replacement
            break
    return {"answer": " ".join(words)}
