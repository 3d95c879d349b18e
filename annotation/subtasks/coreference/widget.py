"""The coreference widget (subtask 4): the context with the target [T] and the candidate
mentions [A]–[D] highlighted, each in its own style with its letter, and the candidates
listed beside it; one choice."""

import re

from django.utils.html import format_html
from django.utils.safestring import SafeString

from annotation.subtasks.choice import card_attributes
from annotation.subtasks.widgets import Widget, compact_json
from annotation.subtasks.widgets.markup import element, mark_up
from scoring.subtasks.coreference import LABELS, MENTION, TARGET_LABEL, TARGET_MENTION


def _mention(match: re.Match[str], inner: SafeString | None) -> SafeString:
    label = match["label"]
    badge = element("span", label, {"class": "mention-badge"})
    attrs = {"class": f"mention mention-{label}", "data-mention": label}
    if label != TARGET_LABEL:
        attrs["data-choice"] = label
    return element("mark", badge + (inner or ""), attrs)


def context(payload: dict, answer: dict | None) -> dict:
    candidates = payload.get("candidates") or {}
    choice = (answer or {}).get("answer")
    chosen = choice if choice in LABELS else None
    return {
        "context_html": mark_up(str(payload.get("context", "")), MENTION, _mention),
        "target_text": _target_text(str(payload.get("context", ""))),
        "candidates": [
            {
                "letter": letter,
                "number": number,
                "text": str(candidates.get(letter, "")),
                "attributes": card_attributes(letter, number, chosen),
            }
            for number, letter in enumerate(LABELS, start=1)
        ],
        "choice": chosen,
    }


def _target_text(text: str) -> str:
    """The target mention as plain text, markers of mentions nested in it removed."""
    match = TARGET_MENTION.search(text)
    return MENTION.sub(lambda inner: inner["body"], match["body"]) if match else ""


def summary(payload: dict, answer: dict) -> str:
    letter = answer.get("answer")
    if letter not in LABELS:
        return compact_json(payload, answer)
    return format_html("<strong>{}</strong> {}", letter, str((payload.get("candidates") or {}).get(letter, "")))


WIDGET = Widget(
    template="annotation/widgets/coreference.html",
    script="annotation/widgets/coreference.js",
    context=context,
    summary=summary,
)
