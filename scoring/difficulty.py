"""Item difficulty: who alone gets an item right, humans or models.

An item's results are the subtask's item figure (``Subtask.correctness``: 1 is right) of each
annotator who answered it and of each model (not answered: its figure, as the metric counts
it). The app's report and a release bundle's reproduce.py classify each item by the same rule.
"""

from __future__ import annotations

HUMANS_ONLY = "humans_only"  # every annotator right, every model wrong
MODELS_ONLY = "models_only"  # every annotator wrong, every model right


def alone_right(people: list[float], machines: list[float]) -> str | None:
    """HUMANS_ONLY, MODELS_ONLY or None for an item with the annotators' results ``people`` and
    the models' ``machines``: None unless there is at least one of each."""
    if not people or not machines:
        return None
    if all(value == 1.0 for value in people) and all(value < 1.0 for value in machines):
        return HUMANS_ONLY
    if all(value < 1.0 for value in people) and all(value == 1.0 for value in machines):
        return MODELS_ONLY
    return None
