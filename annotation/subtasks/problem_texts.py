"""The annotator's words for the problem codes of the scorer (whose messages are English,
for the command line): one text per code, shown by the save service (as "field: text")
and next to a unit in the discourse tree editor. A code not listed keeps the scorer's
message.

On the item page a person reads a refusal as a plain sentence (``sentence``): what is wrong
and what to do, naming the part of the answer in their terms, never a field path. The
field and code stay in the problem for the API and the organizer."""

from __future__ import annotations

from dataclasses import replace

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.core.errors import Refused
from annotation.core.problems import MESSAGES as APP_MESSAGES
from scoring.problems import MESSAGES, Problem

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
    **TREE_PROBLEM_TEXTS,
}


def problem_text(code: str, default: str) -> str:
    """The annotator's words for ``code``, ``default`` if it has none."""
    return str(PROBLEM_TEXTS.get(code, default))


def for_annotator(problem: Problem) -> Problem:
    """The problem in the annotator's words (scoring's own message where there are none; the
    app's own problems are in them already)."""
    if problem.template in APP_MESSAGES:
        return problem
    return replace(problem, message=problem_text(problem.code, problem.message))


# The answer's parts as an annotator knows them (the field's first name, before any [index]).
PART_NAMES: dict[str, Promise] = {
    "answer": _("the answer"),
    "corrected_sentence": _("the corrected sentence"),
    "commas": _("the required commas"),
    "optional": _("the optional commas"),
    "discourse_units": _("the tree"),
}


# One sentence per code for the item page; %(part)s is the part of the answer (PART_NAMES).
SENTENCES: dict[str, Promise] = {
    "required": _("Part of the answer is missing (%(part)s): complete it and save again."),
    "unexpected_field": _("The answer holds something this task does not ask for: reload the page and answer again."),
    "enum": _("This choice is not one of the allowed ones (%(part)s): choose again."),
    "type": _("Part of the answer has the wrong form (%(part)s): reload the page and answer again."),
    "blank": _("The answer is empty: type it before saving."),
    "minLength": _("The answer is empty: type it before saving."),
    "correction_for_correct": _("A sentence marked POPRAWNE has no correction: clear the correction or choose NIEPOPRAWNE."),
    "missing_correction": _("Type the whole corrected sentence: a sentence marked NIEPOPRAWNE needs its correction."),
    "unsorted": _("Each comma position may be given only once: reload the page and mark the commas again."),
    "in_both": _("A position cannot have a required and an optional comma at once: choose one."),
    "unknown_marker": _("The answer names a position this sentence does not have: reload the page and mark the commas again."),
    "too_deep": _("The answer is nested too deeply to read: reload the page and answer again."),
    "too_long": _("Part of the answer is too long for this item (%(part)s): shorten it and save again."),
    "too_many": _("Part of the answer has more entries than this item has (%(part)s): reload the page and answer again."),
    "unstorable": _(
        "The answer holds a character that cannot be saved (U+0000, or half of a surrogate pair), or a number "
        "too large: remove it and save again."
    ),
}


def sentence(problem: Problem) -> str:
    """``problem`` as a plain sentence for the item page. Problems of the discourse tree are
    said as the editor says them next to the unit; an app-made message of no field is already
    a sentence, as is any other of the app's own."""
    if problem.template in APP_MESSAGES and not problem.field:
        return problem.message
    if problem.code in TREE_PROBLEM_TEXTS:
        return gettext("The tree is not complete yet (see the notes next to the units): %(problem)s") % {
            "problem": TREE_PROBLEM_TEXTS[problem.code]
        }
    if problem.code in SENTENCES:
        part = PART_NAMES.get(problem.field.split(".")[0].split("[")[0], PART_NAMES["answer"])
        return str(SENTENCES[problem.code]) % {"part": part}
    if not problem.field:
        return problem.message
    return gettext("This answer cannot be saved: %(problem)s") % {"problem": problem.message}


def sentences(problems: list[Problem]) -> list[str]:
    """The problems as sentences for the item page, each said once."""
    return list(dict.fromkeys(sentence(problem) for problem in problems))


def for_organizer(problem: Problem) -> Problem:
    """A problem of an imported file in the organizer's language: file, line, field, code and
    params kept, the message made from the scorer's template (``scoring.problems.MESSAGES``,
    whose English texts are the catalogue's msgids) and the params, never read back from the
    message. The tree's problems are said in the editor's words (for one DU: "DU x: ...");
    the app's own problems (annotation.core.problems) are in the reader's language already."""
    if problem.template in APP_MESSAGES:
        return problem
    if problem.template:
        code, _slash, variant = problem.template.partition("/")
        if code in TREE_PROBLEM_TEXTS:
            text = str(TREE_PROBLEM_TEXTS[code])
            if variant == "du":
                text = gettext("DU %(du)s: %(problem)s") % {"du": problem.params["du"], "problem": text}
            return replace(problem, message=text)
        # Not literals, so makemessages would not find these msgids: they are kept in the
        # catalogue by hand (a test holds every template translated).
        return replace(problem, message=gettext(MESSAGES[problem.template]) % problem.params)
    if problem.code in PROBLEM_TEXTS:
        return replace(problem, message=str(PROBLEM_TEXTS[problem.code]))
    return problem


def organizer_problems(refused: Refused) -> list:
    """The refusal's problems in the organizer's language (file, line and field kept)."""
    return [for_organizer(problem) for problem in refused.problems]
