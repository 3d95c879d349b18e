"""What JSON and Python strings allow but PostgreSQL cannot store: the character U+0000 (in
text and jsonb alike), unpaired surrogates (no UTF-8 encoding exists for them) and the
infinite or NaN numbers Python's JSON reader makes of ``1e400`` or ``NaN``.

Checked before a write, so that such a value is refused with a message instead of failing
in the database."""

import math
import re

_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")
UNSTORABLE = "holds the character U+0000, an unpaired surrogate or a number too large (or NaN), which cannot be stored"


def unstorable(value: object) -> bool:
    """Whether ``value`` (a parsed JSON value or a string) holds anything the database refuses."""
    if isinstance(value, str):
        return _UNSTORABLE_CHARACTER.search(value) is not None
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(unstorable(key) or unstorable(item) for key, item in value.items())
    if isinstance(value, list):
        return any(unstorable(item) for item in value)
    return False


def unstorable_fields(record: dict) -> list[str]:
    """The names of the fields of ``record`` whose name or value the database would refuse
    (an unstorable name escaped: a page cannot show it either)."""
    return [
        ascii(name) if unstorable(name) else name
        for name, value in record.items()
        if unstorable(name) or unstorable(value)
    ]
