"""The comma-marker widget (subtask `commas`).

The sentence is cut at its markers `[k]` into text pieces and slots; the pieces are
written as text (escaped) and the slots as buttons, so item text never becomes markup.
The answer itself is built in static/annotation/widgets/commas.js.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from annotation.subtasks.widgets import Widget, compact_json
from scoring.subtasks.commas import MARKER as POSITION  # [1] ... [n], a position between words (no body)

# A position with the spaces around it: the preview puts the comma right after the word.
MARKER = re.compile(r"(?P<before>\s*)" + POSITION.pattern + r"(?P<after>\s*)")


# Up to 10 markers, each is typed with its digit (0 for 10); on a sentence with more,
# with its two digits typed quickly (static/annotation/widgets/numbers.js), up to 99.
ONE_DIGIT_MARKERS = 10


TWO_DIGIT_MARKERS = 99


@dataclass(frozen=True)
class Piece:
    """Text between markers, or one marker with whether spaces surrounded it."""

    text: str = ""
    marker: int | None = None
    space_before: bool = False
    space_after: bool = False
    # What follows the comma in the preview: a space unless the marker sat right before
    # punctuation ("kobieta [3]." reads "kobieta.").
    preview_gap: str = ""


def marker_keys(marker: int, marker_count: int) -> str:
    """The digits that toggle `marker` on a sentence of `marker_count` markers ("" if none)."""
    if marker_count <= ONE_DIGIT_MARKERS:
        return str(marker % 10)
    return f"{marker:02d}" if marker <= TWO_DIGIT_MARKERS else ""


def sentence_pieces(sentence: str) -> list[Piece]:
    """Cut `sentence_with_positions` into text pieces and marker pieces, in order."""
    pieces: list[Piece] = []
    position = 0
    for match in MARKER.finditer(sentence):
        if match.start() > position:
            pieces.append(Piece(text=sentence[position : match.start()]))
        following = sentence[match.end() : match.end() + 1]
        space_after = bool(match.group("after"))
        pieces.append(
            Piece(
                marker=int(match.group("label")),
                space_before=bool(match.group("before")),
                space_after=space_after,
                preview_gap=" " if space_after or (match.group("before") and following.isalnum()) else "",
            )
        )
        position = match.end()
    if position < len(sentence):
        pieces.append(Piece(text=sentence[position:]))
    return pieces


def _positions(answer: dict | None, field: str) -> list[int]:
    values = (answer or {}).get(field)
    if not isinstance(values, list):
        return []
    return sorted({value for value in values if isinstance(value, int) and not isinstance(value, bool)})


def _slot_names() -> dict:
    """A marker's accessible name, "Position 3: comma optional": its state is in its name (three
    states, which aria-pressed cannot tell apart); the widget's script names it so on every change."""
    return {
        "position": gettext("Position %(number)s: %(state)s"),
        "none": gettext("no comma"),
        "required": gettext("comma required"),
        "optional": gettext("comma optional"),
    }


def _drawn(pieces: list[Piece], required: list[int], optional: list[int]) -> tuple[SafeString, SafeString]:
    """The sentence with a button per marker, and the preview with a comma mark per marker.

    Written here, not by the template: its loops over the pieces took half of the page's
    drawing time. Item text and translations are escaped; the rest is numbers and fixed words."""
    marker_count = sum(piece.marker is not None for piece in pieces)
    key_title, click_title = gettext("Key %(key)s; Shift+%(key)s: optional"), gettext("Click to change")
    names = _slot_names()
    sentence, preview = [], []
    for piece in pieces:
        if piece.marker is None:
            sentence.append(escape(piece.text))
            preview.append(sentence[-1])
            continue
        marker = piece.marker
        state = "required" if marker in required else "optional" if marker in optional else "none"
        keys = marker_keys(marker, marker_count)
        title = key_title % {"key": keys} if keys else click_title
        sentence.append(
            f'{" " if piece.space_before else ""}<button type="button" class="comma-slot" data-marker="{marker}"'
            f' data-state="{state}" title="{escape(title)}" aria-label="{escape(names["position"] % {"number": marker, "state": names[state]})}">'
            f'{marker}</button>{" " if piece.space_after else ""}'
        )
        preview.append(f'<span class="comma-mark" data-marker="{marker}" data-state="{state}">,</span>{piece.preview_gap}')
    return mark_safe("".join(sentence)), mark_safe("".join(preview))


def context(payload: dict, answer: dict | None) -> dict:
    pieces = sentence_pieces(str(payload.get("sentence_with_positions", "")))
    markers = [piece.marker for piece in pieces if piece.marker is not None]
    required = _positions(answer, "commas")
    # A position is never both; if a stored draft says so, "required" wins on screen.
    optional = [k for k in _positions(answer, "optional") if k not in required]
    sentence_html, preview_html = _drawn(pieces, required, optional)
    return {
        "sentence_html": sentence_html,
        "preview_html": preview_html,
        "marker_count": len(markers),
        "required": required,
        "optional": optional,
        "two_digit_keys": len(markers) > ONE_DIGIT_MARKERS,
        "has_unkeyed_markers": any(k > TWO_DIGIT_MARKERS for k in markers),
        "key_labels": {
            "cycle": (
                gettext("Number of a position, two digits typed quickly (05, 12): no comma → required → optional")
                if len(markers) > ONE_DIGIT_MARKERS
                else gettext("Number of a position (0 = 10): no comma → required → optional")
            ),
            "optional": gettext("Shift+number: make that position optional"),
            "none": gettext("No comma anywhere: save and go on"),
            "slot": _slot_names(),
        },
    }


def summary(payload: dict, answer: dict) -> str:
    """The sentence as it reads with the answer's commas; optional ones as "(,)"."""
    if not isinstance(answer.get("commas"), list) or not isinstance(answer.get("optional"), list):
        return compact_json(payload, answer)
    required, optional = _positions(answer, "commas"), _positions(answer, "optional")
    text = []
    for piece in sentence_pieces(str(payload.get("sentence_with_positions", ""))):
        if piece.marker is None:
            text.append(piece.text)
            continue
        text.append(("," if piece.marker in required else "(,)" if piece.marker in optional else "") + piece.preview_gap)
    return "".join(text)


WIDGET = Widget(
    template="annotation/widgets/commas.html",
    script="annotation/widgets/commas.js",
    context=context,
    summary=summary,
)
