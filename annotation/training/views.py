"""Training rounds (annotators) and the organizer's training, qualification and control page.

An annotator of a dataset with a training pool answers its items first, one page each; once
submitted, the same page shows the gold answer beside theirs (adjudication's difference view)
and the organizer's explanation. Gold is read only for a training item the annotator has
answered in the round shown.
"""

from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from annotation.annotate import queue as queues
from annotation.annotate.item_page import script_messages, widget_page
from annotation.annotate.participants import study_page
from annotation.annotate.views import REFUSED_HEADER, SAVED_HEADER
from annotation.core.errors import Refused
from annotation.core.files import uploaded_source
from annotation.core.http import posted_json, refusal_status
from annotation.core.parameters import NUL, refuse_parameters
from annotation.core.roles import annotator_required, organizer_required
from annotation.models import Dataset, Item, TrainingRound, subtask_title
from annotation.subtasks.widgets import widget_for
from annotation.training import selectors as trainings
from annotation.training import services as training_service
from annotation.training.forms import PoolForm, QualificationForm
from annotation.training.plot import control_accuracy_svg


def _training_dataset(request: HttpRequest, dataset_pk: int) -> Dataset:
    """The dataset, if the annotator works on it and it has a training pool (else 404)."""
    if not queues.works_on(request.user, dataset_pk) or trainings.pool(dataset_pk, Dataset.PoolKind.TRAINING) is None:
        raise Http404
    return get_object_or_404(Dataset, pk=dataset_pk)


@annotator_required
@require_GET
def training_round(request: HttpRequest, dataset_pk: int) -> HttpResponse:
    """The next unanswered training item, or the round's outcome once all are answered."""
    dataset = _training_dataset(request, dataset_pk)
    state = trainings.round_state(trainings.current_round(dataset, request.user))
    if state.next_number is not None and not queues.is_qualified(request.user, dataset.pk):
        return redirect("training_item", dataset.pk, state.next_number)
    study = study_page(request.user)
    if study is not None:
        return redirect(study)  # passed: on to the items; failed: screened out
    return TemplateResponse(request, "annotation/training/outcome.html", {
        "dataset": dataset,
        "state": state,
        "qualified": queues.is_qualified(request.user, dataset.pk),
    })


@annotator_required
@require_http_methods(["GET", "POST"])
def training_item(request: HttpRequest, dataset_pk: int, position: int) -> HttpResponse:
    """Training item ``position`` (1-based) of the annotator's current round: the item page's
    widget and keys; after the answer, the feedback. POST intent=submit answers it (drafts
    are not stored: the browser keeps them until the submit); ?partial=<name> goes to the
    widget, as on the item page."""
    dataset = _training_dataset(request, dataset_pk)
    # Read only, also for a POST: the first answer starts the round (answer_training_item).
    state = trainings.round_state(trainings.current_round(dataset, request.user))
    if not 1 <= position <= len(state.items):
        raise Http404
    number = position
    item = state.items[number - 1]
    partial = widget_for(dataset.subtask).partial_reply(request, item.payload)
    if partial is not None:
        return partial
    if request.method == "POST":
        intent = request.POST.get("intent")
        if intent == "draft":
            response = HttpResponse(status=204)
            response[SAVED_HEADER] = "0"
            return response
        if intent != "submit":
            return HttpResponseBadRequest(_("Unknown action."))
        return _submit(request, state, item, number)
    answered = state.answered.get(item.pk)
    context = {
        "dataset": dataset,
        "state": state,
        "number": number,
        "item": item,
        "subtask_title": subtask_title(dataset.subtask),
        "next_url": _after(dataset.pk, state, number),
    }
    if answered is not None:
        context["feedback"] = trainings.feedback(answered, _("Your answer"), _("Gold answer"))
        return TemplateResponse(request, "annotation/training/feedback.html", context)
    return _item_page(request, context)


def _after(dataset_pk: int, state: trainings.RoundState, number: int) -> str:
    if number < len(state.items):
        return reverse("training_item", args=[dataset_pk, number + 1])
    return reverse("training_round", args=[dataset_pk])


def _storage_key(training_round: TrainingRound, item: Item) -> str:
    """Where the browser keeps the answer to ``item`` until it is sent: per round. A round not
    started yet has no id: its key names the try it will be."""
    if training_round.pk is None:
        return f"training:{training_round.dataset_id}:{training_round.annotator_id}:{training_round.attempt}:{item.pk}"
    return f"training:{training_round.pk}:{item.pk}"


def _item_page(request: HttpRequest, context: dict, problems: list[str] | None = None, status: int = 200):
    item, dataset = context["item"], context["dataset"]
    return widget_page(
        request,
        "annotation/training/item.html",
        context,
        subtask=dataset.subtask,
        payload=item.payload,
        answer=None,
        # The widget's partials go to this page's URL (the widget templates' item_url).
        item_url=reverse("training_item", args=[dataset.pk, context["number"]]),
        storage_key=_storage_key(context["state"].round, item),
        messages=script_messages(get_language(), training=True),
        problems=problems,
        status=status,
    )


def _submit(request: HttpRequest, state: trainings.RoundState, item, number: int) -> HttpResponse:
    try:
        training_service.answer_training_item(round=state.round, item=item, answer=posted_json(request, "answer"))
    except Refused as refusal:
        status = refusal_status(refusal)
        if not request.htmx:
            context = {"dataset": state.round.dataset, "state": state, "number": number, "item": item,
                       "subtask_title": subtask_title(state.round.dataset.subtask)}
            return _item_page(request, context, problems=refusal.messages, status=status)
        response = TemplateResponse(
            request, "annotation/partials/save_refused.html",
            {"problems": refusal.messages, "stale": False, "item_url": request.path}, status=status,
        )
        response[REFUSED_HEADER] = "1"
        return response
    response = HttpResponseClientRedirect(request.path) if request.htmx else redirect(request.path)
    response[SAVED_HEADER] = "1"
    return response


@organizer_required
@require_http_methods(["GET", "POST"])
def organizer_training(request: HttpRequest, pk: int) -> HttpResponse:
    """Training, qualification and control items of a dataset. POST ``action``: settings,
    pool (upload a training or control pool), retry or release (``annotator``)."""
    dataset = get_object_or_404(Dataset, pk=pk, pool_of__isnull=True)
    settings_form = QualificationForm(initial={
        "threshold": dataset.threshold, "control_rate": dataset.control_rate, "control_seed": dataset.control_seed,
    })
    pool_form = PoolForm()
    problems, status = [], 200
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "settings":
                settings_form = QualificationForm(request.POST)
                if settings_form.is_valid():
                    training_service.set_qualification(dataset, **settings_form.cleaned_data)
                    messages.success(request, _("Training and control settings saved."))
                    return redirect("organizer_training", pk=dataset.pk)
                status = 422
            elif action == "pool":
                pool_form = PoolForm(request.POST, request.FILES)
                if pool_form.is_valid():
                    kind = pool_form.cleaned_data["kind"]
                    training_service.import_pool(
                        kind=kind, dataset=dataset, subtask=dataset.subtask, name=None,
                        inputs=uploaded_source(pool_form.cleaned_data["inputs"]),
                        gold=uploaded_source(pool_form.cleaned_data["gold"]),
                        created_by=request.user, replace=pool_form.cleaned_data["replace"],
                    )
                    messages.success(request, _("Pool imported."))
                    return redirect("organizer_training", pk=dataset.pk)
                status = 422
            elif action == "explanation":
                item_pk = request.POST.get("item", "")
                item = get_object_or_404(Item, pk=int(item_pk) if item_pk.isdecimal() else 0, dataset__pool_of=dataset)
                training_service.set_explanation(item, request.POST.get("text", ""))
                messages.success(request, _("Explanation saved."))
                return redirect("organizer_training", pk=dataset.pk)
            elif action in ("retry", "release"):
                name = request.POST.get("annotator", "")
                if NUL in name:
                    return refuse_parameters(request, ["annotator"])
                annotator = get_object_or_404(User, username=name)
                if action == "retry":
                    training_service.allow_retry(dataset, annotator)
                    messages.success(request, _("%(name)s has a fresh training round.") % {"name": annotator.username})
                else:
                    training_service.release_from_training(dataset, annotator, request.user)
                    messages.success(request, _("%(name)s is released.") % {"name": annotator.username})
                return redirect("organizer_training", pk=dataset.pk)
            else:
                return HttpResponseBadRequest(_("Unknown action."))
        except Refused as refusal:
            # Every refusal in the one problem list, a row per problem (never run together in one line).
            problems, status = refusal.problems, refusal_status(refusal)
    series = trainings.control_accuracy(dataset)
    return TemplateResponse(request, "annotation/organizer/training.html", {
        "dataset": dataset,
        "settings_form": settings_form,
        "pool_form": pool_form,
        "problems": problems,
        "archived_pools": trainings.archived_pools(dataset),
        "training_pool": trainings.pool(dataset, Dataset.PoolKind.TRAINING),
        "control_pool": trainings.pool(dataset, Dataset.PoolKind.CONTROL),
        "training_items": trainings.training_items(dataset),
        "table": trainings.qualification_table(dataset),
        "series": series,
        "alerts": trainings.control_alerts(dataset, series),
    }, status=status)


@organizer_required
@require_GET
def control_accuracy_plot(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk, pool_of__isnull=True)
    svg = control_accuracy_svg(
        trainings.control_accuracy(dataset), dataset.threshold,
        title=_("Control-item accuracy over time"), no_data=_("No control answers yet."),
    )
    return HttpResponse(svg, content_type="image/svg+xml")
