"""The annotator's pages: continue a queue, the item page (and its htmx partials), the end
of a queue, and the list of their answers."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect, push_url, retarget

from annotation.annotate import answers as own
from annotation.annotate import queue as queues
from annotation.annotate import routing
from annotation.annotate import services as annotating
from annotation.annotate.forms import OwnAnswersFilter
from annotation.annotate.item_page import script_messages, widget_page
from annotation.annotate.participants import study_page
from annotation.annotate.queue import datasets_with_work
from annotation.core.errors import ItemWithdrawn, NeedsConfirmation, NotQualified, Refused
from annotation.core.http import posted_json, refusal_status
from annotation.core.roles import ADJUDICATOR, ANNOTATOR, ORGANIZER, annotator_required, has_role
from annotation.models import Dataset
from annotation.subtasks.problem_texts import sentences
from annotation.subtasks.widgets import widget_for

# The page's script trusts only these: a login page or a proxy's error page in reply to a save
# is neither, so the answer stays in the browser and is sent again.
SAVED_HEADER = "X-Polis-Version"


REFUSED_HEADER = "X-Polis-Refused"


# A refusal the annotator may confirm (annotation.subtasks.rules cautions); the same submit with
# confirm=CONFIRM is then saved.
CONFIRM_HEADER = "X-Polis-Confirm"


CONFIRM = "1"




def _item_url(page: queues.ItemPage) -> str:
    return reverse("annotate_item", args=[page.dataset_id, page.position])


def _next_url(request: HttpRequest, dataset_id: int, after_position: int = 0) -> str:
    return _url_of_position(dataset_id, queues.next_unanswered_position(request.user, dataset_id, after_position))


def _url_of_position(dataset_id: int, position: int | None) -> str:
    """The item page at ``position`` of the order, or the end-of-queue page for None."""
    if position is None:
        return reverse("queue_done", args=[dataset_id])
    return reverse("annotate_item", args=[dataset_id, position])


@annotator_required
@require_http_methods(["GET", "POST"])
def annotate_continue(request: HttpRequest, dataset_pk: int) -> HttpResponse:
    """The first item of the queue without a submitted answer (or the end-of-queue page); the
    training round first, until the annotator has passed it. A routed dataset: GET goes to the
    item the annotator holds a reservation of, or shows the page that asks for the next one
    (its script posts at once and, while nothing is available, again every little while);
    POST reserves the next item (annotation.annotate.routing)."""
    if not queues.works_on(request.user, dataset_pk):
        raise Http404
    if not queues.is_qualified(request.user, dataset_pk):
        return redirect("training_round", dataset_pk)
    if not queues.is_routed(dataset_pk):
        if request.method == "POST":
            return HttpResponseNotAllowed(["GET"])
        return redirect(_next_url(request, dataset_pk))
    if request.method == "GET":
        held = queues.held_position(request.user, dataset_pk)
        if held is not None:
            return redirect("annotate_item", dataset_pk, held)
        return _waiting(request, dataset_pk, asking=True)
    return _routed_next(request, dataset_pk)


# Seconds between the waiting page's checks for an item.
WAITING_RECHECK_SECONDS = 15


def _waiting(request: HttpRequest, dataset_pk: int, *, asking: bool) -> HttpResponse:
    """The page of a routed dataset with no item for the annotator now (``asking``: not asked
    yet): it asks again by itself."""
    dataset = get_object_or_404(Dataset, pk=dataset_pk)
    template = "annotation/partials/routing_wait.html" if request.htmx else "annotation/routing_wait.html"
    return TemplateResponse(request, template, {
        "dataset": dataset, "asking": asking, "progress": queues.progress(request.user, dataset_pk),
        "recheck_seconds": WAITING_RECHECK_SECONDS,
    })


def _routed_url(request: HttpRequest, dataset_pk: int) -> str | None:
    """Reserve the annotator's next item: its page's URL, the end page's, or None (nothing now)."""
    served = routing.next_item(request.user, dataset_pk)
    if served is None:
        raise Http404
    if served.state == routing.ITEM:
        return reverse("annotate_item", args=[dataset_pk, served.position])
    if served.state == routing.DONE:
        return reverse("queue_done", args=[dataset_pk])
    return None


def _routed_next(request: HttpRequest, dataset_pk: int) -> HttpResponse:
    url = _routed_url(request, dataset_pk)
    if url is None:
        return _waiting(request, dataset_pk, asking=False)
    return _client_redirect(request, url)


@annotator_required
@require_GET
def queue_done(request: HttpRequest, dataset_pk: int) -> HttpResponse:
    if not queues.works_on(request.user, dataset_pk):
        raise Http404
    study = study_page(request.user)
    if study is not None:
        return redirect(study)
    dataset = get_object_or_404(Dataset, pk=dataset_pk)
    return TemplateResponse(
        request,
        "annotation/queue_done.html",
        {"dataset": dataset, "progress": queues.progress(request.user, dataset_pk)},
    )


@annotator_required
@require_GET
def my_answers(request: HttpRequest) -> HttpResponse:
    """The annotator's answers, each shown in its subtask's terms; filtered by dataset and status."""
    filters = OwnAnswersFilter(request.GET, datasets=own.datasets_answered(request.user))
    chosen = filters.cleaned_data if filters.is_valid() else {}
    dataset = chosen.get("dataset")
    answers = own.own_answers(request.user, dataset_id=dataset.pk if dataset else None, status=chosen.get("status") or None)
    page = Paginator(answers, 50).get_page(request.GET.get("page"))
    rows = [
        (answer, widget_for(answer.item.dataset.subtask).summary(answer.item.payload, answer.answer))
        for answer in page.object_list
    ]
    query = request.GET.copy()
    query.pop("page", None)
    return TemplateResponse(
        request,
        "annotation/my_answers.html",
        {"page": page, "rows": rows, "filters": filters, "filter_query": query.urlencode()},
    )


@annotator_required
@require_http_methods(["GET", "POST"])
def annotate_item(request: HttpRequest, dataset_pk: int, position: int) -> HttpResponse:
    """The item page; POST intents draft/submit/skip/flag; ?partial=<name> goes to the widget."""
    page = queues.item_page(request.user, dataset_pk, position)
    if page is None:
        raise Http404
    if not page.qualified:
        return _not_qualified(request, page)
    partial = widget_for(page.subtask).partial_reply(request, page.payload)
    if partial is not None:
        return partial
    if request.method == "GET":
        return _item_page(request, page)
    intent = request.POST.get("intent")
    if intent in ("draft", "submit"):
        return _save(request, page, submit=intent == "submit")
    if intent == "skip":
        if page.routed:
            routing.skip(page)
            return redirect(_routed_url(request, dataset_pk) or reverse("annotate_continue", args=[dataset_pk]))
        annotating.skip(page)
        return redirect(_next_url(request, dataset_pk, page.position))
    if intent == "renew" and page.routed:
        # The page's script, while the page is used: the reservation lasts (204 either way).
        routing.renew(page)
        return HttpResponse(status=204)
    if intent == "flag":
        return _flag(request, page)
    return HttpResponseBadRequest(_("Unknown action."))


def _not_qualified(request: HttpRequest, page: queues.ItemPage) -> HttpResponse:
    refusal = NotQualified()
    if request.htmx:
        response = TemplateResponse(
            request, "annotation/partials/save_refused.html",
            {"problems": refusal.messages, "stale": False, "item_url": _item_url(page)},
            status=refusal_status(refusal),
        )
        response[REFUSED_HEADER] = "1"
        return response
    return TemplateResponse(
        request, "annotation/training/not_qualified.html",
        {"dataset_id": page.dataset_id, "dataset_name": page.dataset_name, "problems": refusal.messages},
        status=refusal_status(refusal),
    )


def _item_page(
    request: HttpRequest,
    page: queues.ItemPage,
    problems: list[str] | None = None,
    status: int = 200,
    layout: str = "base.html",
) -> TemplateResponse:
    """The item page (in ``layout``: the whole page, or NEXT_ITEM_LAYOUT for save & next
    without a page load)."""
    messages = script_messages(get_language())
    if page.withdrawn:
        # Shown like a frozen dataset's item: read only, Enter says why.
        messages = {**messages, "frozen": ItemWithdrawn().messages[0]}
    return widget_page(
        request,
        "annotation/item.html",
        {"layout": layout, "page": page, "clock": annotating.start_clock(page)},
        subtask=page.subtask,
        payload=page.payload,
        # A stored draft that is not an object (drafts are checked, but pages draw whatever is
        # stored) is shown as no answer, to the widget and the script alike.
        answer=page.answer if isinstance(page.answer, dict) else None,
        item_url=_item_url(page),
        storage_key=f"{page.annotator_id}:{page.item_id}",
        messages=messages,
        frozen=page.frozen or page.withdrawn,
        submitted=page.submitted,
        problems=problems,
        status=status,
    )


def _posted_int(request: HttpRequest, name: str) -> int:
    try:
        return max(0, int(request.POST.get(name) or 0))
    except ValueError:
        return 0


def _save(request: HttpRequest, page: queues.ItemPage, submit: bool) -> HttpResponse:
    served = None
    try:
        fields = {
            "answer": posted_json(request, "answer"),
            "based_on_version": _posted_int(request, "version"),
            "active_ms": _posted_int(request, "active_ms"),
            "clock": request.POST.get("clock"),
            "confirmed": request.POST.get("confirm") == CONFIRM,
        }
        if submit and page.routed:
            outcome, served = annotating.submit_and_reserve_next(request.user, page=page, **fields)
        else:
            outcome = annotating.save_answer(page=page, submit=submit, **fields)
    except Refused as refusal:
        status = refusal_status(refusal)
        confirmable = isinstance(refusal, NeedsConfirmation)
        if not request.htmx:
            # Read again: the answer a stale save lost to is newer than the page read before it.
            current = queues.item_page(request.user, page.dataset_id, page.position)
            return _item_page(request, current, problems=sentences(refusal.problems), status=status)
        response = TemplateResponse(
            request,
            "annotation/partials/save_refused.html",
            {
                "problems": sentences(refusal.problems),
                "stale": status == 409,
                "item_url": _item_url(page),
                "confirmable": confirmable,
                "confirm_value": CONFIRM,
            },
            status=status,
        )
        response[REFUSED_HEADER] = "1"
        if confirmable:
            response[CONFIRM_HEADER] = CONFIRM
        return response
    if submit:
        response = _next_item(request, page, served)
    else:
        response = TemplateResponse(
            request,
            "annotation/partials/save_done.html",
            {"annotation": outcome.annotation, "clock": annotating.start_clock(page)},
        )
    response[SAVED_HEADER] = str(outcome.annotation.version)
    return response


# The item page's part that save & next replaces; it and the layout are in annotation/item.html
# and annotation/partials/next_item.html.
ITEM_AREA = "#item-area"


NEXT_ITEM_LAYOUT = "annotation/partials/next_item.html"


def _next_item(request: HttpRequest, submitted: queues.ItemPage, served: routing.Next | None) -> HttpResponse:
    """Where save & next goes once ``submitted`` is saved (``served``: the routed dataset's
    next item, reserved with the save). For the page's script (htmx), the
    next item without a page load: its item area, which htmx swaps in for the current one, at
    its URL, which htmx pushes into the browser's history (so back, reload and the address
    bar follow). Without script, and for the end of the queue, a redirect."""
    next_position = submitted.next_position
    if served is not None:
        if served.state == routing.WAITING:
            return _client_redirect(request, reverse("annotate_continue", args=[submitted.dataset_id]))
        next_position = served.position
    next_url = _url_of_position(submitted.dataset_id, next_position)
    if not request.htmx:
        return redirect(next_url)
    following = None
    if next_position is not None:
        following = queues.item_page(request.user, submitted.dataset_id, next_position)
    if following is None:  # the end of the queue: a page of its own
        return HttpResponseClientRedirect(next_url)
    response = _item_page(request, following, layout=NEXT_ITEM_LAYOUT)
    retarget(response, ITEM_AREA)
    # settle:0ms: the new item's htmx attributes work, and its widget starts, in the same task.
    response["HX-Reswap"] = "outerHTML settle:0ms show:window:top"
    return push_url(response, next_url)


def _client_redirect(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _flag(request: HttpRequest, page: queues.ItemPage) -> HttpResponse:
    try:
        annotating.raise_flag(page, request.POST.get("comment", ""))
    except Refused as refusal:
        if not request.htmx:
            messages.error(request, " ".join(refusal.messages))
            return redirect(_item_url(page))
        return TemplateResponse(
            request,
            "annotation/partials/flag_result.html",
            {"problems": refusal.messages},
            status=refusal_status(refusal),
        )
    if not request.htmx:
        messages.success(request, _("Thank you: the organizers will look at this item."))
        return redirect(_item_url(page))
    return TemplateResponse(request, "annotation/partials/flag_result.html", {"problems": []})


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Annotators: their datasets with progress (a panel participant: their study); organizers
    and adjudicators: the way to their pages."""
    is_annotator = has_role(request.user, ANNOTATOR)
    study = study_page(request.user) if is_annotator else None
    if study is not None:
        return redirect(study)
    return TemplateResponse(
        request,
        "annotation/home.html",
        {
            "is_annotator": is_annotator,
            "is_organizer": has_role(request.user, ORGANIZER),
            "is_adjudicator": has_role(request.user, ADJUDICATOR),
            "datasets": datasets_with_work(request.user) if is_annotator else [],
        },
    )


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, for the pages that do not link the icon themselves (the admin, the browsable API)."""
    return HttpResponseRedirect(static("favicon.svg"))
