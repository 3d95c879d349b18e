"""The word-sense widget (subtask 3): the reference sentence and four candidate cards A–D,
each with its [[TARGET]] word highlighted; one choice."""

from django.utils.html import format_html

from annotation.subtasks.choice import card_attributes
from annotation.subtasks.widgets import Widget, compact_json
from annotation.subtasks.widgets.markup import highlight
from scoring.subtasks.wsd import LABELS
from scoring.subtasks.wsd import TARGET as WSD_TARGET


def context(payload: dict, answer: dict | None) -> dict:
    candidates = payload.get("candidates") or {}
    choice = (answer or {}).get("answer")
    chosen = choice if choice in LABELS else None
    return {
        "reference_html": highlight(str(payload.get("reference_sentence", "")), WSD_TARGET),
        "candidates": [
            {
                "letter": letter,
                "number": number,
                "html": highlight(str(candidates.get(letter, "")), WSD_TARGET),
                "attributes": card_attributes(letter, number, chosen),
            }
            for number, letter in enumerate(LABELS, start=1)
        ],
        "choice": chosen,
    }


def summary(payload: dict, answer: dict) -> str:
    letter = answer.get("answer")
    if letter not in LABELS:
        return compact_json(payload, answer)
    candidate = str((payload.get("candidates") or {}).get(letter, ""))
    return format_html("<strong>{}</strong> {}", letter, highlight(candidate, WSD_TARGET))


WIDGET = Widget(
    template="annotation/widgets/wsd.html",
    script="annotation/widgets/wsd.js",
    context=context,
    summary=summary,
)
