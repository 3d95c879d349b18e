"""The numerals widget (subtask 2): the sentence with its [[digits]] target, a text field
for the written-out numeral, and a form check of the typed words (the `form_check` partial).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.subtasks.numerals.answers import rules
from annotation.subtasks.numerals.forms import check_words
from annotation.subtasks.widgets import Widget, compact_json
from annotation.subtasks.widgets.markup import highlight
from scoring.subtasks.numerals import TARGET as NUMERAL_TARGET

# The text field's name; not "answer", which the item page's form already uses.
FIELD = "numeral"


# The longest written-out numeral of the benchmark is far shorter; the check stops there.
MAX_CHECKED_CHARS = 300


def _check_context(value: str, payload: dict) -> dict:
    """The form check of what is typed, and the refusals a save of it would get (annotation.subtasks.rules)."""
    words = check_words(value[:MAX_CHECKED_CHARS])
    return {
        "checked_words": words,
        "unknown_words": sum(not word.is_numeral for word in words),
        "refusals": rules({"answer": value}, payload),
    }


def context(payload: dict, answer: dict | None) -> dict:
    value = (answer or {}).get("answer")
    value = value if isinstance(value, str) else ""
    return {
        "sentence_html": highlight(str(payload.get("sentence", "")), NUMERAL_TARGET),
        "field": FIELD,
        "numeral": value,
        **_check_context(value, payload),
    }


def form_check_partial(request: HttpRequest, payload: dict) -> HttpResponse:
    data = request.POST if request.method == "POST" else request.GET
    context = _check_context(data.get(FIELD, ""), payload)
    return render(request, "annotation/widgets/numerals_check.html", context)


def summary(payload: dict, answer: dict) -> str:
    value = answer.get("answer")
    return value if isinstance(value, str) else compact_json(payload, answer)


WIDGET = Widget(
    template="annotation/widgets/numerals.html",
    script="annotation/widgets/numerals.js",
    context=context,
    partials={"form_check": form_check_partial},
    summary=summary,
)
