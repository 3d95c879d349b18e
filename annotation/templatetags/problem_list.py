"""``{% problem_list problems form ... %}``: a refusal's problems as one list, the same on every
page: the total said right, at most MAX_LISTED_PROBLEMS rows, each naming file, line and field,
the forms' own errors among them (a field named by its label, e.g. an empty file's), all in the
organizer's language. static/annotation/problem_list.js opens the page at its heading."""

from __future__ import annotations

from dataclasses import dataclass

from django import template

from annotation.core.problems import MAX_LISTED_PROBLEMS
from annotation.subtasks.problem_texts import for_organizer

register = template.Library()


@dataclass(frozen=True)
class ListedProblem:
    file: str
    line: int | None
    field: str
    label: str  # a form field's label, where the problem is a form's error
    message: str


@register.inclusion_tag("annotation/organizer/_problems.html")
def problem_list(problems, *forms) -> dict:
    rows = [
        ListedProblem("", None, "", str(form[name].label) if name in form.fields else "", str(message))
        for form in forms if form is not None and form.is_bound
        for name, errors in form.errors.items() for message in errors
    ]
    unlisted = 0
    for found in problems or ():
        if found.template == "more_problems":  # an import's count of the problems it did not keep
            unlisted += found.params["count"]
            continue
        said = for_organizer(found)
        rows.append(ListedProblem(said.file or "", said.line, said.field, "", said.message))
    return {
        "rows": rows[:MAX_LISTED_PROBLEMS],
        "total": len(rows) + unlisted,
        "unlisted": len(rows[MAX_LISTED_PROBLEMS:]) + unlisted,
    }
