"""The comma-marker widget (subtask `commas`).

The sentence is cut at its markers `[k]` into text pieces and slots; the template
writes the pieces as text (auto-escaped) and the slots as buttons, so item text never
becomes markup. The answer itself is built in static/annotation/widgets/commas.js.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from django.utils.translation import gettext

from annotation.widgets import Widget
from annotation.widgets.markup import POSITION

# A position with the spaces around it: the preview puts the comma right after the word.
MARKER = re.compile(r"(?P<before>\s*)" + POSITION.pattern + r"(?P<after>\s*)")
# Markers 1-9 are typed with their digit and marker 10 with 0; higher ones are clicked.
KEYED_MARKERS = 10


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
    # As drawn (set by context()): the marker's state and its button's title and label,
    # worked out here because the template took longer to do it for every marker.
    state: str = ""
    title: str = ""
    label: str = ""

    @property
    def key(self) -> str:
        """The key that toggles this marker ("" if it has none)."""
        if self.marker is None or self.marker > KEYED_MARKERS:
            return ""
        return str(self.marker % 10)


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


def _drawn(piece: Piece, required: list[int], optional: list[int]) -> Piece:
    if piece.marker is None:
        return piece
    state = "required" if piece.marker in required else "optional" if piece.marker in optional else "none"
    if piece.key:
        title = gettext("Key %(key)s; Shift+%(key)s: optional") % {"key": piece.key}
    else:
        title = gettext("Click to change")
    return replace(piece, state=state, title=title, label=gettext("Position %(number)s") % {"number": piece.marker})


def context(payload: dict, answer: dict | None) -> dict:
    pieces = sentence_pieces(str(payload.get("sentence_with_positions", "")))
    markers = [piece.marker for piece in pieces if piece.marker is not None]
    required = _positions(answer, "commas")
    # A position is never both; if a stored draft says so, "required" wins on screen.
    optional = [k for k in _positions(answer, "optional") if k not in required]
    return {
        "pieces": [_drawn(piece, required, optional) for piece in pieces],
        "marker_count": len(markers),
        "required": required,
        "optional": optional,
        "has_unkeyed_markers": any(k > KEYED_MARKERS for k in markers),
        "key_labels": {
            "cycle": gettext("Number of a position (0 = 10): no comma → required → optional"),
            "optional": gettext("Shift+number: make that position optional"),
            "none": gettext("No comma anywhere: save and go on"),
        },
    }


WIDGET = Widget(
    template="annotation/widgets/commas.html",
    script="annotation/widgets/commas.js",
    context=context,
)
