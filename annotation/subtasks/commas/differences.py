"""How commas answers differ: the positions where the answers differ, in the sentence and as a table."""

from __future__ import annotations

from django.utils.translation import gettext as _

from annotation.subtasks.commas.widget import sentence_pieces
from annotation.subtasks.differences import Differences, LabelledAnswers


def _comma_state(answer: dict, marker: int) -> str:
    if marker in (answer.get("commas") or []):
        return "required"
    return "optional" if marker in (answer.get("optional") or []) else "none"


def differences(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    pieces = sentence_pieces(str(payload.get("sentence_with_positions", "")))
    markers = [piece.marker for piece in pieces if piece.marker is not None]
    states = {marker: [_comma_state(answer, marker) for _, answer in answers] for marker in markers}
    differing = {marker for marker, shown in states.items() if len(set(shown)) > 1}
    words = {"required": _("comma"), "optional": _("optional"), "none": "–"}

    def summary(answer: dict) -> str:
        required = ", ".join(str(k) for k in answer.get("commas") or []) or "–"
        optional = ", ".join(str(k) for k in answer.get("optional") or [])
        return _("commas at %(required)s") % {"required": required} + (
            "; " + _("optional at %(optional)s") % {"optional": optional} if optional else ""
        )

    return Differences(
        template="annotation/adjudicate/differences/commas.html",
        summaries=[summary(answer) for _, answer in answers],
        details={
            "pieces": pieces,
            "differing": differing,
            "labels": [label for label, _ in answers],
            "rows": [
                {"marker": marker, "states": [words[state] for state in states[marker]]}
                for marker in markers
                if marker in differing
            ],
        },
    )
