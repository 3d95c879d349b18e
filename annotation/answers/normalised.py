"""One text per distinct answer: what tells agreeing answers from disagreeing ones."""

import json

from scoring.subtasks import get_subtask


def normalised_answer(subtask: str, answer: dict) -> str:
    """The answer after the subtask's normaliser, as canonical JSON: two submitted answers
    of an item disagree exactly when these texts differ."""
    normalised = get_subtask(subtask).normalise(answer)
    return json.dumps(normalised, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
