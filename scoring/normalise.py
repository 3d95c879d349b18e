"""Answer normalisers: the one normaliser of each subtask, used by the app and the metrics.

A normaliser canonicalises the answer fields it understands and passes anything
malformed through unchanged, so that validation after normalising still sees it.
"""

from __future__ import annotations

import re
import unicodedata

_WHITESPACE = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Unicode NFC, runs of white space to one space, stripped."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def fold_numeral(text: str) -> str:
    """``clean_text`` and lower case: how numeral answers and accepted forms are compared."""
    return clean_text(text).lower()


def normalise_morphosyntax(answer: dict) -> dict:
    result = dict(answer)
    if isinstance(result.get("corrected_sentence"), str):
        result["corrected_sentence"] = clean_text(result["corrected_sentence"])
    return result


def normalise_numerals(answer: dict) -> dict:
    result = dict(answer)
    if isinstance(result.get("answer"), str):
        result["answer"] = fold_numeral(result["answer"])
    return result


def normalise_label(answer: dict) -> dict:
    """wsd and coreference: a label is exactly A-D, so nothing is rewritten."""
    return dict(answer)


def normalise_discourse(answer: dict) -> dict:
    result = dict(answer)
    units = result.get("discourse_units")
    if isinstance(units, list):
        result["discourse_units"] = [
            {key: unit.get(key) for key in ("du_id", "head", "relation")} if isinstance(unit, dict) else unit
            for unit in units
        ]
    return result


def normalise_commas(answer: dict) -> dict:
    """Marker lists ascending without duplicates (the metric compares sets anyway)."""
    result = dict(answer)
    for field in ("commas", "optional"):
        value = result.get(field)
        if isinstance(value, list) and all(_is_int(index) for index in value):
            result[field] = sorted(set(value))
    return result


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
