"""Text normalisation shared by the subtasks that compare written answers."""

from __future__ import annotations

import re
import unicodedata

_WHITESPACE = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Unicode NFC, runs of white space to one space, stripped."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def is_int(value: object) -> bool:
    """A JSON integer (Python's bool is an int, JSON's true is not)."""
    return isinstance(value, int) and not isinstance(value, bool)
