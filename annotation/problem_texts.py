"""The annotator's words for the problem codes of the scorer (whose messages are English,
for the command line): one text per code, shown by the save service (as "field: text")
and next to a unit in the discourse tree editor. A code not listed keeps the scorer's
message."""

from __future__ import annotations

from dataclasses import replace

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from scoring.problems import Problem

# The codes of scoring.subtasks.discourse.tree_problems (a test holds them equal).
TREE_PROBLEM_TEXTS: dict[str, Promise] = {
    "duplicate_du": _("This unit is given more than once."),
    "unknown_du": _("This unit is not a unit of this passage."),
    "missing_du": _("Not attached yet: choose its head or make it the root."),
    "no_root": _("No unit is the root: make one unit the root."),
    "multiple_roots": _("A second root: only one unit may be the root; attach the others to a head."),
    "root_with_relation": _("The root must have no relation."),
    "unknown_head": _("Its head is not a unit of this passage."),
    "self_attachment": _("A unit cannot be its own head."),
    "cycle": _("On a cycle: following the heads from here comes back here."),
    "missing_relation": _("No relation yet: choose a label."),
    "unknown_relation": _("The relation is not one of the 21 labels."),
}

PROBLEM_TEXTS: dict[str, Promise] = {
    "required": _("is required"),
    "unexpected_field": _("is not a field of this answer"),
    "enum": _("is not one of the allowed values"),
    "type": _("has the wrong type"),
    "blank": _("must not be blank"),
    "minLength": _("must not be empty"),
    "correction_for_correct": _("must be empty when the sentence is POPRAWNE"),
    "missing_correction": _("must hold the whole corrected sentence when it is NIEPOPRAWNE"),
    "unsorted": _("positions must be ascending, each once"),
    "in_both": _("a position cannot be both required and optional"),
    "unknown_marker": _("names a position the sentence does not have"),
    "too_deep": _("is nested too deeply"),
    "too_long": _("is too long for this item"),
    "too_many": _("has more entries than this item has"),
    "unstorable": _(
        "holds the character U+0000, an unpaired surrogate or a number too large (or NaN), which cannot be stored"
    ),
    **TREE_PROBLEM_TEXTS,
}


def problem_text(code: str, default: str) -> str:
    """The annotator's words for ``code``, ``default`` if it has none."""
    return str(PROBLEM_TEXTS.get(code, default))


def for_annotator(problem: Problem) -> Problem:
    """The problem in the annotator's words (scoring's own message where there are none)."""
    return replace(problem, message=problem_text(problem.code, problem.message))
