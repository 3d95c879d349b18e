"""Organizer pages that read a dataset's items: the item browser, one item with all it holds,
and the adjudication's cases (read only: the decisions are the adjudicators' pages)."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from annotation.adjudicate import selectors as cases
from annotation.adjudicate.services import may_adjudicate
from annotation.core.roles import organizer_required
from annotation.datasets.browsing import SORTS, STATES, Browse, item_page, item_record
from annotation.models import Dataset
from annotation.subtasks.item_fields import annotator_payload
from annotation.subtasks.widgets import widget_for


@organizer_required
@require_GET
def item_browser(request: HttpRequest, pk: int) -> HttpResponse:
    """The dataset's items: ?q= (id or input text), ?state=, ?sort=, ?page=."""
    dataset = get_object_or_404(Dataset, pk=pk)
    browse = Browse.from_query(request.GET)
    page = item_page(dataset, browse)
    return TemplateResponse(request, "annotation/organizer/items.html", {
        "dataset": dataset,
        "browse": browse,
        "page": page,
        "states": STATES,
        "sorts": {key: label for key, (label, _ordering) in SORTS.items()},
    })


@organizer_required
@require_GET
def item_detail(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    """One item: its input as annotators see it (the widget, read only), every answer with its
    revisions, the flags, the adjudication and its history, the gold."""
    dataset = get_object_or_404(Dataset, pk=pk)
    record = item_record(dataset, item_pk)
    if record is None:
        raise Http404
    widget = widget_for(dataset.subtask)
    payload = annotator_payload(dataset.subtask, record.item.payload)
    answers = [(answer, widget.summary(payload, answer.answer)) for answer in record.answers]
    return TemplateResponse(request, "annotation/organizer/item.html", {
        "dataset": dataset,
        "record": record,
        "item": record.item,
        "payload": payload,
        "answer": None,
        "widget": widget,
        "answers": answers,
        "adjudication_summary": (
            widget.summary(payload, record.adjudication.answer) if record.adjudication else None
        ),
        "may_adjudicate": may_adjudicate(request.user, dataset.pk),
        **widget.context(payload, None),
    })


@organizer_required
@require_GET
def adjudication_overview(request: HttpRequest, pk: int) -> HttpResponse:
    """The dataset's open, stale and settled cases, who settled them and when."""
    dataset = get_object_or_404(Dataset, pk=pk)
    rows = cases.dataset_cases(dataset.pk)
    by_status = {status: [row for row in rows if row.status == status] for status in (cases.OPEN, cases.STALE, cases.SETTLED)}
    return TemplateResponse(request, "annotation/organizer/adjudication.html", {
        "dataset": dataset,
        "by_status": by_status,
        "may_adjudicate": may_adjudicate(request.user, dataset.pk),
    })
