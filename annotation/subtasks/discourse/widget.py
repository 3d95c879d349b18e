"""The discourse tree editor (subtask `discourse`).

The page's JavaScript keeps the edits (selection, heads, labels, undo); after each edit it
posts the draft to the `tree` partial, which draws the list of units with their heads, the
indented tree and the problems of scoring.subtasks.discourse.tree_problems next to the unit they
concern. Tree validity is decided there and only there; this module lays the draft out and
shows the codes in the annotator's words (annotation.subtasks.problem_texts).

Units the annotator has not touched yet are left out of the draft, so the scorer reports
them as `missing_du` ("not attached yet") instead of as extra roots.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotAllowed,
)
from django.shortcuts import render
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext

from annotation.subtasks.discourse.relations import RELATION_GUIDES
from annotation.subtasks.problem_texts import problem_text
from annotation.subtasks.widgets import Widget, compact_json
from scoring.subtasks.discourse import PASSAGE, RELATIONS, tree_problems

_GUIDE_BY_LABEL = {guide.label: guide for guide in RELATION_GUIDES}


PARTIAL_TEMPLATE = "annotation/widgets/discourse_partial.html"


SNIPPET_LENGTH = 60


class ShownProblem(NamedTuple):
    code: str  # from scoring.subtasks.discourse.tree_problems
    message: str


@dataclass(frozen=True)
class Part:
    text: str
    gap_before: bool  # other text of the passage comes between this part and the previous one


@dataclass
class Unit:
    """One DU as the editor shows it, with the draft's head and relation for it."""

    du_id: str
    number: int  # position in text order, from 1: what the annotator types to choose a head
    parts: list[Part]
    attached: bool = False  # the draft has an entry for it
    head: str | None = None
    head_number: int | None = None
    relation: str | None = None
    problems: list[ShownProblem] = field(default_factory=list)

    @property
    def is_root(self) -> bool:
        return self.attached and self.head is None

    @property
    def snippet(self) -> str:
        text = " … ".join(part.text for part in self.parts)
        return text if len(text) <= SNIPPET_LENGTH else text[: SNIPPET_LENGTH - 1].rstrip() + "…"


MAX_INDENT = 12  # rows deeper than this are drawn at this indentation (a class per level in discourse.css)


@dataclass(frozen=True)
class TreeRow:
    unit: Unit
    depth: int

    @property
    def indent(self) -> int:
        return min(self.depth, MAX_INDENT)


def units_in_text_order(payload: dict) -> list[Unit]:
    """The passage's DUs sorted by where they start; each DU's parts in their order."""
    raw_units = [unit for unit in payload.get("discourse_units", []) if isinstance(unit, dict)]

    def sorted_parts(unit: dict) -> list[dict]:
        return sorted(unit.get("parts", []), key=lambda part: part.get("order", 0))

    def start(unit: dict) -> int:
        parts = sorted_parts(unit)
        return parts[0].get("order", 0) if parts else 0

    def shown_parts(unit: dict) -> list[Part]:
        shown: list[Part] = []
        previous_order = None
        for part in sorted_parts(unit):
            order = part.get("order", 0)
            # `order` numbers the parts of the whole passage: a jump means other text between.
            gap = previous_order is not None and order != previous_order + 1
            shown.append(Part(text=str(part.get("text", "")), gap_before=gap))
            previous_order = order
        return shown

    return [
        Unit(du_id=str(unit.get("du_id", "")), number=number, parts=shown_parts(unit))
        for number, unit in enumerate(sorted(raw_units, key=start), start=1)
    ]


def draft_entries(answer: object) -> list[object]:
    """The draft's entries in a shape the tree check reads, whatever was stored or posted: in
    an object, a head or relation that is neither a string nor null becomes "" (no unit's id
    and no label, so it is reported as unknown rather than taken as absent); anything but an
    object stays as it is (the check reports it as an unknown unit)."""
    entries = answer.get("discourse_units") if isinstance(answer, dict) else None
    if not isinstance(entries, list):
        return []
    return [
        {**entry, "head": _text_or_none(entry.get("head")), "relation": _text_or_none(entry.get("relation"))}
        if isinstance(entry, dict)
        else entry
        for entry in entries
    ]


def _text_or_none(value: object) -> str | None:
    return value if value is None or isinstance(value, str) else ""


def shown_problems(codes: list[str]) -> list[ShownProblem]:
    return [ShownProblem(code, problem_text(code, code)) for code in codes]


def tree_view(payload: dict, answer: object) -> dict:
    """Everything the tree partial draws: the units with heads and problems, the tree rows."""
    units = units_in_text_order(payload)
    by_id = {unit.du_id: unit for unit in units}
    entries = draft_entries(answer)
    for entry in entries:
        du_id = entry.get("du_id") if isinstance(entry, dict) else None
        unit = by_id.get(du_id) if isinstance(du_id, str) else None
        if unit is None or unit.attached:
            continue  # unknown or repeated entries are reported by the tree check
        unit.attached = True
        unit.head = entry["head"]
        unit.relation = entry["relation"]
        head_unit = by_id.get(unit.head) if unit.head is not None else None
        unit.head_number = head_unit.number if head_unit else None

    problems = tree_problems([unit.du_id for unit in units], entries)
    for unit in units:
        unit.problems = shown_problems(problems.get(unit.du_id, []))

    return {
        "units": units,
        "tree_rows": _tree_rows(units, by_id),
        "detached": [unit for unit in units if unit.attached and not _reaches_root(unit, by_id)],
        "unattached": [unit for unit in units if not unit.attached],
        "passage_problems": shown_problems(problems.get(PASSAGE, [])),
        "problem_count": sum(len(codes) for codes in problems.values()),
        # Words repeated on every row, translated once: the partial is drawn after each edit.
        "words": {
            "gap": gettext("other text of the passage comes here"),
            "not_attached": gettext("not attached"),
            "root": gettext("root"),
            "no_relation": gettext("no relation"),
            "head": gettext("head"),
            "head_title": gettext("Make this unit the head of the selected unit"),
        },
    }


def _tree_rows(units: list[Unit], by_id: dict[str, Unit]) -> list[TreeRow]:
    """The units hanging from each root, depth first, children in text order."""
    children: dict[str, list[Unit]] = {}
    for unit in units:
        if unit.head is not None and unit.head in by_id and unit.head != unit.du_id:
            children.setdefault(unit.head, []).append(unit)
    rows: list[TreeRow] = []
    stack = [(root, 0) for root in reversed(units) if root.is_root]
    while stack:
        unit, depth = stack.pop()
        rows.append(TreeRow(unit=unit, depth=depth))
        stack.extend((child, depth + 1) for child in reversed(children.get(unit.du_id, [])))
    return rows


def _reaches_root(unit: Unit, by_id: dict[str, Unit]) -> bool:
    """Whether following heads from `unit` ends at a root (drawing only, not a validity check)."""
    seen: set[str] = set()
    current: Unit | None = unit
    while current is not None and current.du_id not in seen:
        if current.is_root:
            return True
        seen.add(current.du_id)
        current = by_id.get(current.head) if current.head is not None else None
    return False


def context(payload: dict, answer: object) -> dict:
    view = tree_view(payload, answer)
    return {
        **view,
        "relation_options": relation_options(),
        "relation_rows": relation_rows(),
        "du_order": [unit.du_id for unit in view["units"]],
        "discourse_text": _script_text(),
    }


# The relations, in the benchmark's order, each with its Polish name, definition and example:
# as buttons of the relation list and as rows of the guideline's table. The same on every
# page (the guides are Polish, untranslated), so made once per process: drawn by template
# loops on every page they took a third of its drawing time. The options are no Tab stops: the
# relation field (a combobox) is, and its arrow keys move through them (aria-activedescendant).
RELATION_OPTION = (
    '<button type="button" class="relation-option" role="option" id="relation-option-{}" tabindex="-1"'
    ' data-relation="{}" data-name="{}"\n'
    '          data-definition="{}" data-example="{}" title="{}: {}">{} <span class="relation-name" lang="pl">{}</span></button>'
)


RELATION_ROW = "\n    <tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n  "


def _guides() -> list:
    return [_GUIDE_BY_LABEL[label] for label in RELATIONS]


@cache
def relation_options() -> SafeString:
    return format_html_join("", RELATION_OPTION, (
        (number, guide.label, guide.name, guide.definition, guide.example, guide.name, guide.definition, guide.label,
         guide.name)
        for number, guide in enumerate(_guides(), start=1)
    ))


@cache
def relation_rows() -> SafeString:
    return format_html_join("", RELATION_ROW, (
        (guide.label, guide.name, guide.definition, guide.example) for guide in _guides()
    ))


def _script_text() -> dict:
    """The words discourse.js shows, in the annotator's language."""
    return {
        "unit": gettext("Unit %(number)s"),
        "root": gettext("root"),
        "notAttached": gettext("not attached"),
        "noRelation": gettext("no relation"),
        "selectFirst": gettext("Select a unit first (click it, or J/K)."),
        "headFirst": gettext("Give the unit a head before its relation."),
        "noSuchUnit": gettext("There is no unit %(number)s."),
        "typeRelation": gettext("Type the first letters of a relation."),
        "nothingToUndo": gettext("Nothing to undo."),
        "nothingToRedo": gettext("Nothing to redo."),
        "keys": {
            "next": gettext("Next unit"),
            "previous": gettext("Previous unit"),
            "head": gettext("Digits: the head's number, then Enter"),
            "relation": gettext("Choose the relation (type its first letters, Enter)"),
            "root": gettext("Make the selected unit the root"),
            "detach": gettext("Detach the selected unit"),
            "undo": gettext("Undo"),
            "redo": gettext("Redo"),
        },
    }


def tree_partial(request: HttpRequest, payload: dict) -> HttpResponse:
    """The drawn tree and its problems for the draft posted as `answer` (nothing is saved)."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        answer = json.loads(request.POST.get("answer", ""))
    except (ValueError, RecursionError):  # also numbers too long and nesting too deep to read
        return HttpResponseBadRequest(gettext("answer: not valid JSON."))
    if not isinstance(answer, dict):
        return HttpResponseBadRequest(gettext("answer: must be a JSON object."))
    return render(request, PARTIAL_TEMPLATE, tree_view(payload, answer))


def summary(payload: dict, answer: dict) -> str:
    units = answer.get("discourse_units")
    if not isinstance(units, list):
        return compact_json(payload, answer)
    return ngettext("tree: %(count)d unit", "tree: %(count)d units", len(units)) % {"count": len(units)}


WIDGET = Widget(
    template="annotation/widgets/discourse.html",
    script="annotation/widgets/discourse.js",
    context=context,
    partials={"tree": tree_partial},
    summary=summary,
)
