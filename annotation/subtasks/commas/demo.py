"""A demo rater's slip in commas: a missed comma (sometimes made optional) or an extra one."""

from __future__ import annotations

import random

from scoring.subtasks.commas import markers


def demo_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    required, optional = list(answer["commas"]), list(answer["optional"])
    free = [marker for marker in range(1, len(markers(item["sentence_with_positions"])) + 1)
            if marker not in required and marker not in optional]
    if required and (not free or rng.random() < 0.5):
        missed = rng.choice(required)
        required.remove(missed)
        if rng.random() < 0.5:
            optional.append(missed)
    elif free:
        required.append(rng.choice(free))
    return {"commas": sorted(required), "optional": sorted(optional)}
