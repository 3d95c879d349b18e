"""What JSON and Python strings allow but PostgreSQL cannot store: the character U+0000 (in
text and jsonb alike), unpaired surrogates (no UTF-8 encoding exists for them) and the
infinite or NaN numbers Python's JSON reader makes of ``1e400`` or ``NaN``.

Checked before a write, so that such a value is refused with a message instead of failing
in the database."""

import math
import re

_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def unstorable(value: object) -> bool:
    """Whether ``value`` (a parsed JSON value or a string) holds anything the database refuses.

    Iterative: the input decides how deep ``value`` nests."""
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            if _UNSTORABLE_CHARACTER.search(node) is not None:
                return True
        elif isinstance(node, float):
            if not math.isfinite(node):
                return True
        elif isinstance(node, dict):
            pending.extend(node.keys())
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


def unstorable_fields(record: dict) -> list[str]:
    """The names of the fields of ``record`` whose name or value the database would refuse
    (an unstorable name escaped: a page cannot show it either)."""
    return [
        ascii(name) if unstorable(name) else name
        for name, value in record.items()
        if unstorable(name) or unstorable(value)
    ]
