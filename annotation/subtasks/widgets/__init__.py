"""The answer area of the item page: one Widget per subtask.

A subtask's widget is the ``WIDGET`` part of its folder (``annotation/subtasks/<key>/widget.py``);
a subtask without one gets the raw JSON form (``annotation/subtasks/widgets/raw.py``), so the
whole flow works before, and independently of, the dedicated widgets.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from django.http import Http404, HttpRequest, HttpResponse

from annotation.subtasks import part

# The query parameter that makes a request to a page with a widget one of the widget's partials.
PARTIAL = "partial"


def compact_json(payload: dict, answer: dict) -> str:
    return json.dumps(answer, ensure_ascii=False)


@dataclass(frozen=True)
class Widget:
    # Included inside the item page's answer form; gets item, payload, answer and context(...).
    template: str
    # Static path of the widget's one JS module (loaded with type="module" after core.js).
    script: str | None
    # (item payload, current answer fields or None) -> extra template context.
    context: Callable[[dict, dict | None], dict]
    # htmx partials: (request, the item's payload) -> the piece of the page; served by every
    # page with the widget for ?partial=<name> (GET or POST), see partial_reply.
    partials: Mapping[str, Callable[[HttpRequest, dict], HttpResponse]] = field(default_factory=dict)
    # (item payload, stored answer) -> the answer in one line, in the subtask's own terms
    # (text, escaped by the template, or SafeString built from escaped parts).
    summary: Callable[[dict, dict], str] = compact_json

    def partial_reply(self, request: HttpRequest, payload: dict) -> HttpResponse | None:
        """The reply to the widget's own htmx request (``?partial=<name>``) about the item with
        ``payload``; None for a request of the page itself. Raises Http404 for a name the
        widget has no partial of. The item, training and adjudication pages all answer their
        widget's partials through this, at their own URL, once they have checked access."""
        name = request.GET.get(PARTIAL)
        if name is None:
            return None
        if name not in self.partials:
            raise Http404
        return self.partials[name](request, payload)


def widget_for(subtask: str) -> Widget:
    """The ``WIDGET`` of the subtask's folder; the raw JSON form where it has none."""
    widget = part(subtask, "WIDGET", None)
    if widget is None:
        from annotation.subtasks.widgets.raw import raw_widget  # raw imports Widget from here

        widget = raw_widget(subtask)
    return widget
