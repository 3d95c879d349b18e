"""The adjudicator's pages: datasets with disagreements, the queue, one item, the end of it."""

from __future__ import annotations

from functools import cache

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from annotation.adjudicate import selectors as cases
from annotation.adjudicate import services as adjudicating
from annotation.core.errors import NotAdjudicatorHere, Refused, StaleDecision
from annotation.core.http import posted_json, refusal_status
from annotation.core.roles import adjudicator_required
from annotation.models import Adjudication, Dataset, Item, single_keys_for
from annotation.subtasks.item_fields import annotator_payload
from annotation.subtasks.widgets import PARTIAL, widget_for

# The page's script trusts only these, as on the item page.
SAVED_HEADER = "X-Polis-Version"
REFUSED_HEADER = "X-Polis-Refused"
# Where the page goes when another adjudicator holds the item it has just opened.
NEXT_HEADER = "X-Polis-Next"


def _dataset_to_adjudicate(request: HttpRequest, dataset_pk: int) -> Dataset:
    dataset = get_object_or_404(Dataset, pk=dataset_pk)
    if not adjudicating.may_adjudicate(request.user, dataset.pk):
        raise PermissionDenied
    return dataset


def _next_url(request: HttpRequest, dataset_pk: int, after_item_id: int | None = None) -> str:
    item_id = cases.next_case(request.user, dataset_pk, after_item_id)
    if item_id is None:
        return reverse("adjudicate_done", args=[dataset_pk])
    return reverse("adjudicate_item", args=[dataset_pk, item_id])


@adjudicator_required
@require_GET
def adjudicate_home(request: HttpRequest) -> HttpResponse:
    return TemplateResponse(
        request, "annotation/adjudicate/home.html",
        {"datasets": cases.adjudicator_datasets(request.user), "audits": cases.audit_datasets(request.user)},
    )


@adjudicator_required
@require_GET
def adjudicate_continue(request: HttpRequest, dataset_pk: int) -> HttpResponse:
    """The first open item of the queue not held by another adjudicator (or the end page)."""
    _dataset_to_adjudicate(request, dataset_pk)
    return redirect(_next_url(request, dataset_pk))


@adjudicator_required
@require_GET
def adjudicate_done(request: HttpRequest, dataset_pk: int) -> HttpResponse:
    dataset = _dataset_to_adjudicate(request, dataset_pk)
    return TemplateResponse(
        request,
        "annotation/adjudicate/done.html",
        {"dataset": dataset, "counts": cases.dataset_counts(dataset.pk)},
    )


@adjudicator_required
@require_http_methods(["GET", "POST"])
def adjudicate_item(request: HttpRequest, dataset_pk: int, item_pk: int) -> HttpResponse:
    """One item's page; POST intents decide/skip/claim/renew; ?partial=<name> goes to the
    subtask's widget (editing mode uses the annotators' widget). The GET writes nothing: the
    page's script claims the item once it is open (intent ``claim``) and renews the claim
    while the page is in use (``renew``); a decision checks the claims itself, so the page
    works without the script too."""
    dataset = _dataset_to_adjudicate(request, dataset_pk)
    if request.method == "GET" and PARTIAL not in request.GET:
        case = cases.adjudication_case(dataset, item_pk)
        if case is None or case.status is None:  # not an item to settle (yet)
            raise Http404
        return _page(request, case)
    # Partials and saves need only the item: the service checks the rest.
    item = get_object_or_404(cases.items_with_dataset(), pk=item_pk, dataset=dataset, withdrawn_at=None)
    partial = widget_for(dataset.subtask).partial_reply(request, annotator_payload(dataset.subtask, item.payload))
    if partial is not None:
        return partial
    intent = request.POST.get("intent")
    if intent == "decide":
        return _decide(request, item)
    if intent == "skip":
        adjudicating.release_claim(item=item, adjudicator=request.user)
        return _go(request, _next_url(request, dataset.pk, item.pk))
    if intent in ("claim", "renew"):
        return _claim(request, item, opened=intent == "claim")
    return HttpResponseBadRequest(_("Unknown action."))


def _claim(request: HttpRequest, item: Item, *, opened: bool) -> HttpResponse:
    """204: the item is the adjudicator's for CLAIM_TIME. 409: another adjudicator holds it;
    when the page has just opened, the reply names the next case (NEXT_HEADER) for the page to
    go to, where it says why."""
    if adjudicating.claim_item(item=item, adjudicator=request.user):
        return HttpResponse(status=204)
    response = HttpResponse(status=409)
    if opened:
        messages.info(request, _("Another adjudicator is working on that item: here is the next one."))
        response[NEXT_HEADER] = _next_url(request, item.dataset_id, item.pk)
    return response


def _go(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _edit_source(request: HttpRequest, case: cases.AdjudicationCase) -> tuple[str, dict | None]:
    """Which answer editing mode starts from: ?edit=<k> (annotator k), ?edit=M (the majority),
    ?edit=D (the decision); nothing: choosing mode, the widget shows the item unanswered."""
    wanted = request.GET.get("edit", "")
    if wanted == "M" and case.majority is not None:
        return wanted, case.majority
    if wanted == "D" and case.adjudication is not None:
        return wanted, case.adjudication.answer
    if wanted.isdecimal() and 1 <= int(wanted) <= len(case.answers):
        return wanted, case.answers[int(wanted) - 1].answer
    return "", None


def _page(
    request: HttpRequest, case: cases.AdjudicationCase, problems: list[str] | None = None, status: int = 200
) -> TemplateResponse:
    widget = widget_for(case.dataset.subtask)
    edit_from, edit_answer = _edit_source(request, case)
    decided = case.adjudication
    config = {
        "editFrom": edit_from,
        "claimRenewMs": int(adjudicating.CLAIM_TIME.total_seconds() * 1000 / 3),
        "decided": (
            {"source": decided.source, "annotation": decided.source_annotation_id} if decided else None
        ),
        "messages": _script_messages(get_language()),
        "singleKeys": single_keys_for(request.user),
    }
    context = {
        "case": case,
        "dataset": case.dataset,
        "subtask_title": case.dataset.subtask_title,
        "item": case.item,
        "payload": case.payload,
        "answer": edit_answer,
        "widget": widget,
        "previous_item": cases.previous_decision(request.user, case.dataset.pk, case.item.pk),
        "config": config,
        "problems": problems or [],
        "sources": Adjudication.Source,
        **widget.context(case.payload, edit_answer),
    }
    return TemplateResponse(request, "annotation/adjudicate/item.html", context, status=status)


@cache
def _script_messages(language: str | None) -> dict[str, str]:
    """Texts the page's script shows, translated here (once per language and process)."""
    return {
        "saving": _("Saving…"),
        "failed": _("Could not reach the server: nothing was saved. Press Enter to try again."),
        "chooseFirst": _("Choose an answer first (1–9, M), or edit one (E)."),
        "claimLost": _("Another adjudicator has taken this item over: your decision would be refused."),
        "choosingMode": _("Choosing"),
        "editingMode": _("Editing"),
        "keyTake": _("Take annotator k's answer"),
        "keyMajority": _("Take the majority answer"),
        "keyEdit": _("Edit, starting from the chosen answer"),
        "keySave": _("Save the decision and open the next item"),
        "keySaveAnywhere": _("Save the decision, also while typing"),
        "keyNote": _("Write a note to the decision"),
        "keyPrevious": _("Previous decision"),
        "keySkip": _("Skip this item"),
        "keyHelp": _("Show the keys"),
        "keyHelpAnywhere": _("Show the keys, also while typing"),
        "keyBack": _("Back to choosing mode"),
        "keyAnswerField": _("Go to the answer field"),
        "keyEscape": _("Leave the text field or close a window"),
    }


def _decide(request: HttpRequest, item: Item) -> HttpResponse:
    annotation = request.POST.get("annotation", "")
    version = request.POST.get("version", "")
    try:
        adjudication = adjudicating.save_decision(
            item=item,
            adjudicator=request.user,
            source=request.POST.get("source", ""),
            annotation_id=int(annotation) if annotation.isdecimal() else None,
            answer=posted_json(request, "answer"),
            note=request.POST.get("note", ""),
            based_on_version=int(version) if version.isdecimal() else 0,
        )
    except Refused as refusal:
        status = refusal_status(refusal)
        if isinstance(refusal, NotAdjudicatorHere):
            raise PermissionDenied from None
        if not request.htmx:
            case = cases.adjudication_case(item.dataset, item.pk)
            return _page(request, case, problems=refusal.messages, status=status)
        response = TemplateResponse(
            request,
            "annotation/adjudicate/refused.html",
            {"problems": refusal.messages, "stale": isinstance(refusal, StaleDecision), "item_url": request.path},
            status=status,
        )
        response[REFUSED_HEADER] = "1"
        return response
    response = _go(request, _next_url(request, item.dataset_id, item.pk))
    response[SAVED_HEADER] = str(adjudication.version)
    return response
