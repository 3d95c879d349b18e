"""One fault found in a file, a line or an answer, and the one table of the scorer's English
texts (``MESSAGES``), made from a problem's code and parameters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

# The discourse tree's texts, one per code of scoring.subtasks.discourse.tree_problems.
_TREE: dict[str, str] = {
    "duplicate_du": "the DU is given more than once",
    "unknown_du": "the DU is not a DU of this passage",
    "missing_du": "the DU is not given",
    "no_root": "no DU is the root (head and relation null)",
    "multiple_roots": "more than one DU is a root",
    "root_with_relation": "the root (head null) has a relation; it must be null",
    "unknown_head": "the head is not a DU of this passage",
    "self_attachment": "the DU is its own head",
    "cycle": "the DU is on a cycle of heads",
    "missing_relation": "the DU has a head but no relation",
    "unknown_relation": "the relation is not one of the 21 labels",
}

# Template -> English text with %(name)s (or %(name)r: Python's repr) placeholders, filled
# with a problem's ``params``. A template is a problem's code, or ``code/variant`` where one
# code has several wordings. The app's catalogue (locale/pl/.../django.po) translates these
# very texts: they are its msgids.
MESSAGES: dict[str, str] = {
    # Reading a JSON Lines file (scoring.jsonl).
    "encoding": "not valid UTF-8 (byte %(byte)s)",
    "json": "invalid JSON: %(detail)s (column %(column)s)",
    "json/digits": "unreadable JSON: a number with too many digits",
    "json/depth": "unreadable JSON: nested too deeply",
    "not_object": "expected a JSON object, found %(found)s",
    # Ids (scoring.validation, scoring.evaluate).
    "no_id": "missing or not a string",
    "duplicate_id": "duplicate id %(id)r (first on line %(first_line)s)",
    "unknown_id": "%(id)r is not an id of the inputs",
    "unknown_id/gold": "%(id)r is not an id of the gold file",
    "missing_answer": "input %(id)r has no answer",
    # Schemas (scoring.validation).
    "required": "is required",
    "unexpected_field": "is not a field of this record",
    "unexpected_field/answer": "is not an answer field of this subtask",
    "enum": "%(value)r is not one of: %(allowed)s",
    "type": "expected %(expected)s, found %(found)s",
    "type/or_null": "expected %(expected)s or null",
    "type/object": "expected a JSON object",
    "minLength": "must not be empty",
    "minItems": "must not be an empty list",
    "uniqueItems": "has duplicates",
    "minimum": "%(value)r is less than the minimum of %(minimum)r",
    "schema": "%(detail)s",  # any other schema keyword: jsonschema's own English (code: the keyword)
    # The subtasks' own checks (scoring.subtasks).
    "no_markers": "no position markers [1]..[n]",
    "bad_markers": "markers must be [1]..[%(count)s], consecutive from 1, each once; found %(found)s",
    "unsorted": "indices must be ascending without duplicates",
    "in_both": "positions %(positions)s are also in commas",
    "unknown_marker": "positions %(positions)s are not markers of the item (it has [1]..[%(count)s])",
    "bad_target": "expected exactly one target [[digits]], found %(count)s",
    "bad_target/other": "a [[...]] other than the one [[digits]] target",
    "bad_target/count": "expected %(opening)s...%(closing)s exactly once, found %(opened)s %(opening)s and %(closed)s %(closing)s",
    "bad_target/order": "%(opening)s...%(closing)s must enclose a word, in that order",
    "bad_mention": "expected %(opening)s...%(closing)s exactly once, found %(opened)s %(opening)s and %(closed)s %(closing)s",
    "bad_mention/order": "%(closing)s comes before %(opening)s",
    "candidate_mismatch": "differs from the text marked [%(label)s]...[/%(label)s] in the context (%(text)r)",
    "blank": "must not be blank",
    "correction_for_correct": "must be empty for %(label)s",
    "missing_correction": "must hold the full corrected sentence for %(label)s",
    "duplicate_du/input": "du_id %(du)r is used twice",
    **_TREE,
    **{f"{code}/du": f"DU %(du)s: {text}" for code, text in _TREE.items()},
}

TREE_CODES = tuple(_TREE)


@dataclass(frozen=True)
class Problem:
    """A fault with where it is: ``str()`` gives ``FILE:LINE: field: message``.

    ``field`` names the offending field (a dotted path with list indices, e.g.
    ``discourse_units[2].head``) or, for a whole line, what was wrong with it
    (``json``, ``line``). ``code`` is a stable machine-readable name the app can
    translate or group by; ``params`` are the details (an id, a line, a value, what was
    expected...). A problem the scorer makes also names its ``template`` (a key of
    ``MESSAGES``) and its ``message`` is that template filled with ``params``: English for
    people reading the CLI; the app says the same in its people's words from the template and
    the params, never by reading the message. The app's own problems have no template and a
    message in the reader's language.
    """

    field: str
    message: str
    code: str = ""
    file: str | None = None
    line: int | None = None
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}), compare=False)
    template: str = ""

    def at(self, file: str | None, line: int | None) -> Problem:
        """The same problem, located in ``file`` at ``line``."""
        return replace(self, file=file, line=line)

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "
        elif self.line is not None:
            where = f"line {self.line}: "
        return f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"


def problem(template: str, field: str, file: str | None = None, line: int | None = None, *,
            code: str | None = None, **params: object) -> Problem:
    """The problem of ``template`` (a key of ``MESSAGES``) with ``params``: its code is the
    template's part before any "/" (unless ``code`` is given), its message the English text."""
    return Problem(field, MESSAGES[template] % params, code if code is not None else template.partition("/")[0],
                   file, line, MappingProxyType(dict(params)), template)
