"""The gold audit's page: the items whose annotators agree against the gold, and the
decisions on them (organizers; adjudicators where the organizer allows it and the gold is
revealed to them)."""

import json

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation.core.errors import Refused
from annotation.core.http import posted_json, posted_object, refusal_status
from annotation.core.roles import ORGANIZER, has_role
from annotation.datasets.auditing import STATES, audit_details, audit_posteriors, audit_queue, decide, may_audit
from annotation.models import Dataset, GoldAuditDecision, Item
from annotation.subtasks.item_fields import annotator_payload
from annotation.subtasks.problem_texts import organizer_problems
from annotation.subtasks.widgets import widget_for
from scoring.subtasks import get_subtask

PAGE_SIZE = 25


@login_required
@require_http_methods(["GET", "POST"])
def gold_audit(request: HttpRequest, pk: int) -> HttpResponse:
    """A dataset's (or pool's) audit queue, most unanimous first: ?state=, ?page=; POST
    ``item``, ``kind`` (stands, corrected, withdrawn), ``note`` and for a correction ``gold``
    (the gold line as JSON) records a decision."""
    dataset = get_object_or_404(Dataset.objects.select_related("pool_of"), pk=pk)
    if not may_audit(request.user, dataset):
        raise PermissionDenied
    state = request.GET.get("state", "")
    state = state if state in STATES else ""
    problems, status, refused_item = [], 200, None
    if request.method == "POST":
        item = posted_object(request, Item, "item")
        if item.dataset_id != dataset.pk:
            raise PermissionDenied
        try:
            decide(item=item, by=request.user, kind=request.POST.get("kind", ""), note=request.POST.get("note", ""),
                   gold=posted_json(request, "gold"))
        except Refused as refused:
            problems, status, refused_item = organizer_problems(refused), refusal_status(refused), item.pk
        else:
            query = f"?state={state}&page={request.GET.get('page', '1')}" if state else f"?page={request.GET.get('page', '1')}"
            return redirect(reverse("gold_audit", args=[dataset.pk]) + query + f"#audit-{item.pk}", permanent=False)
    queue = audit_queue(dataset, audit_posteriors(dataset))
    counts = {key: sum(audited.state == key for audited in queue) for key in STATES}
    page = Paginator([audited for audited in queue if not state or audited.state == state], PAGE_SIZE).get_page(
        request.GET.get("page", "1"))
    subtask, widget = get_subtask(dataset.subtask), widget_for(dataset.subtask)
    rows = []
    for audited in audit_details(list(page.object_list)):
        payload = annotator_payload(dataset.subtask, audited.payload or {})
        rows.append({
            "audited": audited,
            "answers": [(widget.summary(payload, answer), count) for answer, count in audited.distinct_answers],
            "gold": widget.summary(payload, subtask.gold_answer_fields(audited.gold)),
            "gold_in_force": widget.summary(payload, subtask.gold_answer_fields(audited.current_gold)),
            "corrected": audited.current_gold != audited.gold,
            "gold_json": json.dumps(audited.current_gold, ensure_ascii=False),
            "entered": widget.summary(payload, audited.entry.answer_fields) if audited.entry else "",
        })
    return TemplateResponse(request, "annotation/organizer/gold_audit.html", {
        "dataset": dataset,
        "served": dataset.pool_of or dataset,
        "rows": rows,
        "page": page,
        "state": state,
        "states": STATES,
        "counts": counts,
        "total": len(queue),
        "kinds": GoldAuditDecision.Kind.choices,
        "problems": problems,
        "refused_item": refused_item,
        "posted": request.POST if problems else {},
        "is_organizer": has_role(request.user, ORGANIZER),
    }, status=status)

