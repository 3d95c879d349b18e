"""A demo rater's slip in discourse: another relation, or a head one level up."""

from __future__ import annotations

import random

from scoring.subtasks.discourse import RELATIONS


def demo_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    units = [dict(unit) for unit in answer["discourse_units"]]
    heads = {unit["du_id"]: unit["head"] for unit in units}
    dependents = [unit for unit in units if unit["head"] is not None]
    if not dependents:
        return answer
    unit = rng.choice(dependents)
    grandparent = heads[unit["head"]]
    if grandparent is not None and rng.random() < 0.4:
        unit["head"] = grandparent  # one level up: still a tree
    else:
        unit["relation"] = rng.choice([relation for relation in RELATIONS if relation != unit["relation"]])
    return {"discourse_units": units}
