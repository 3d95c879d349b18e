"""The morphosyntax widget (subtask 1): POPRAWNE / NIEPOPRAWNE and a correction editor.

Below the editor a word-level diff of the original and the correction is rendered by
the server (difflib) through the `diff` htmx partial while the annotator types.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import format_html, format_html_join

from annotation.subtasks.widgets import Widget, compact_json
from scoring.subtasks.morphosyntax import CORRECT, INCORRECT

# A word, or one punctuation mark, with the white space before it: a changed comma shows
# as a changed comma, not as a changed word.
_TOKEN = re.compile(r"(\s*)(\w+|[^\w\s])")


# A correction is one sentence; a paste of a whole page is not diffed past this length.
MAX_DIFF_CHARS = 5000


@dataclass(frozen=True)
class DiffPiece:
    kind: str  # "equal", "delete" (only in the original) or "insert" (only in the correction)
    space: str  # the white space before the token, shown outside the change marks
    text: str


def word_diff(original: str, corrected: str) -> list[DiffPiece]:
    old, new = _TOKEN.findall(original), _TOKEN.findall(corrected)
    matcher = difflib.SequenceMatcher(a=[t for _, t in old], b=[t for _, t in new], autojunk=False)
    pieces: list[DiffPiece] = []
    for operation, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        if operation == "equal":
            pieces += [DiffPiece("equal", space, token) for space, token in new[b_start:b_end]]
            continue
        pieces += [DiffPiece("delete", space, token) for space, token in old[a_start:a_end]]
        pieces += [DiffPiece("insert", space, token) for space, token in new[b_start:b_end]]
    return pieces


def _diff_context(original: str, corrected: str) -> dict:
    pieces = word_diff(original, corrected)
    return {
        "diff": pieces,
        "added_words": sum(piece.kind == "insert" for piece in pieces),
        "removed_words": sum(piece.kind == "delete" for piece in pieces),
    }


def context(payload: dict, answer: dict | None) -> dict:
    sentence = str(payload.get("sentence", ""))
    choice = (answer or {}).get("answer")
    corrected = (answer or {}).get("corrected_sentence") or ""
    # The editor starts from the sentence itself until the annotator has typed a correction.
    editor_text = corrected if choice == INCORRECT and corrected else sentence
    return {
        "sentence": sentence,
        "choice": choice if choice in (CORRECT, INCORRECT) else None,
        "correct": CORRECT,
        "incorrect": INCORRECT,
        "editor_text": editor_text,
        **_diff_context(sentence, editor_text),
    }


def diff_partial(request: HttpRequest, payload: dict) -> HttpResponse:
    data = request.POST if request.method == "POST" else request.GET
    sentence = str(payload.get("sentence", ""))
    corrected = data.get("corrected_sentence", sentence)[:MAX_DIFF_CHARS]
    return render(request, "annotation/widgets/morphosyntax_diff.html", _diff_context(sentence, corrected))


def summary(payload: dict, answer: dict) -> str:
    """POPRAWNE, or NIEPOPRAWNE with the changed words only (… between separate changes)."""
    if answer.get("answer") == CORRECT:
        return CORRECT
    corrected = answer.get("corrected_sentence")
    if answer.get("answer") != INCORRECT or not isinstance(corrected, str):
        return compact_json(payload, answer)
    pieces = word_diff(str(payload.get("sentence", "")), corrected)
    changes: list[tuple[str, str, str]] = []
    for index, piece in enumerate(pieces):
        if piece.kind == "equal":
            continue
        separate = changes and pieces[index - 1].kind == "equal"
        changes.append((" … " if separate else " ", "del" if piece.kind == "delete" else "ins", piece.text))
    marked = format_html_join("", "{}<{}>{}</{}>", ((gap, tag, text, tag) for gap, tag, text in changes))
    return format_html("{}:{}", INCORRECT, marked)


WIDGET = Widget(
    template="annotation/widgets/morphosyntax.html",
    script="annotation/widgets/morphosyntax.js",
    context=context,
    partials={"diff": diff_partial},
    summary=summary,
)
