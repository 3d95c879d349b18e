"""Organizer pages: datasets, import, assignment, progress, flags, freeze, export, agreement,
accounts."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from annotation.adjudicate.forms import AdjudicationSettingsForm
from annotation.adjudicate.services import set_adjudication_settings
from annotation.core.errors import Refused
from annotation.core.files import uploaded_source
from annotation.core.http import refusal_status
from annotation.core.roles import organizer_required
from annotation.datasets import removing
from annotation.datasets.assigning import assign, release_items
from annotation.datasets.forms import (
    AssignForm,
    GoldForm,
    ImportForm,
    ReleaseForm,
    ResolveFlagForm,
    RoutingForm,
    SampleForm,
)
from annotation.datasets.importing import import_dataset, import_gold
from annotation.datasets.organizing import resolve_flag, set_frozen
from annotation.datasets.progress import (
    annotator_progress,
    archived_count,
    dataset_flag,
    dataset_flags,
    dataset_overview,
    datasets_overview,
    gold_additions,
    model_submissions,
    open_flag_count,
    withdrawn_items,
)
from annotation.datasets.routing import routing_state, set_routing
from annotation.datasets.sampling import preview_sample, sample_ids, served_items, set_sample
from annotation.models import Dataset, Flag
from annotation.subtasks.problem_texts import organizer_problems


@organizer_required
@require_http_methods(["GET"])
def dataset_list(request: HttpRequest) -> HttpResponse:
    """The datasets; ?archived=1: the archived ones, and the record of the deleted ones."""
    archived = request.GET.get("archived") == "1"
    return TemplateResponse(request, "annotation/organizer/dataset_list.html", {
        "datasets": datasets_overview(archived=archived),
        "archived": archived,
        "archived_count": archived_count(),
        "deleted": removing.removal_records(None) if archived else [],
    })


@organizer_required
@require_http_methods(["GET", "POST"])
def dataset_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The dataset page; POST freezes/unfreezes it, changes its adjudication settings or its
    routing (fixed queues or routing and its settings), or resolves a flag, perhaps
    withdrawing its item (htmx: the flag's row)."""
    dataset = get_object_or_404(Dataset, pk=pk)
    if request.method == "POST":
        action = request.POST.get("action")
        if action in ("freeze", "unfreeze"):
            set_frozen(dataset, action == "freeze")
            messages.success(
                request, _("Answers are frozen.") if action == "freeze" else _("Answers can be edited again.")
            )
            return redirect("organizer_dataset", pk=dataset.pk)
        if action == "adjudication":
            form = AdjudicationSettingsForm(request.POST, instance=dataset)
            if form.is_valid():
                set_adjudication_settings(dataset, **form.cleaned_data)
                messages.success(request, _("Adjudication settings saved."))
            return redirect("organizer_dataset", pk=dataset.pk)
        if action == "routing":
            form = RoutingForm(request.POST)
            if not form.is_valid():
                messages.error(request, " ".join(str(error) for errors in form.errors.values() for error in errors))
                return redirect("organizer_dataset", pk=dataset.pk)
            try:
                set_routing(dataset, **form.settings())
            except Refused as refused:
                messages.error(request, " ".join(refused.messages))
            else:
                messages.success(request, _("The routing settings are saved."))
            return redirect("organizer_dataset", pk=dataset.pk)
        if action == "resolve":
            flag_pk = request.POST.get("flag", "")
            if not flag_pk.isdecimal():  # not an id at all: no such flag, rather than a crash
                raise Http404
            flag = get_object_or_404(Flag, pk=int(flag_pk), item__dataset=dataset)
            form = ResolveFlagForm(request.POST)
            if form.is_valid():
                flag = resolve_flag(
                    flag, request.user, form.cleaned_data["note"], withdraw=form.cleaned_data["withdraw"]
                )
            if request.htmx and form.is_valid() and form.cleaned_data["withdraw"]:
                # The withdrawn items' list changes too: the whole page is drawn anew.
                return HttpResponseClientRedirect(reverse("organizer_dataset", args=[dataset.pk]))
            if request.htmx:
                # The row, and out of band the heading's count of open flags.
                return TemplateResponse(
                    request,
                    "annotation/organizer/_flag.html",
                    {"dataset": dataset, "flag": dataset_flag(flag.pk), "open_flag_count": open_flag_count(dataset)},
                )
            return redirect("organizer_dataset", pk=dataset.pk)
        return HttpResponse(status=400)
    return TemplateResponse(
        request,
        "annotation/organizer/dataset_detail.html",
        {
            "dataset": dataset_overview(pk),
            "progress": annotator_progress(dataset),
            "flags": dataset_flags(dataset),
            "adjudication_form": AdjudicationSettingsForm(instance=dataset),
            "routing_form": RoutingForm.of_dataset(dataset),
            "routing": routing_state(dataset, timezone.now()),
            "withdrawn": withdrawn_items(dataset),
            "gold_additions": gold_additions(dataset),
            "model_submissions": model_submissions(dataset),
            "removals": removing.removal_records(dataset),
        },
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def dataset_removal(request: HttpRequest, pk: int) -> HttpResponse:
    """Delete, archive or restore a dataset or a pool: GET is the confirmation, naming what
    goes; POST ``action`` delete (refused once anything depends on it), archive or restore."""
    dataset = get_object_or_404(Dataset, pk=pk)
    problems, status = [], 200
    if request.method == "POST":
        action = {"delete": removing.delete, "archive": removing.archive, "restore": removing.restore}.get(
            request.POST.get("action", ""))
        if action is None:
            return HttpResponse(status=400)
        try:
            done = action(dataset, by=request.user)
        except Refused as refused:
            problems, status = organizer_problems(refused), refusal_status(refused)
        else:
            messages.success(request, _("%(what)s “%(name)s”: %(action)s.") % {
                "what": done.get_kind_display().capitalize(), "name": done.name, "action": done.get_action_display()})
            if dataset.pool_of_id is not None:
                return redirect("organizer_training", pk=dataset.pool_of_id)
            if done.action == done.Action.DELETED:
                return redirect("organizer_datasets")
            return redirect("organizer_dataset", pk=dataset.pk)
        dataset = get_object_or_404(Dataset, pk=pk)
    return TemplateResponse(request, "annotation/organizer/removal.html", {
        "dataset": dataset, "removal": removing.removal(dataset), "problems": problems,
    }, status=status)


@organizer_required
@require_http_methods(["GET", "POST"])
def import_upload(request: HttpRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    problems, status = [], 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            dataset = import_dataset(
                subtask=data["subtask"],
                name=data["name"],
                inputs=uploaded_source(data["inputs"]),
                gold=uploaded_source(data["gold"]) if data["gold"] else None,
                gold_synthetic=data["gold_synthetic"],
                gold_partial=data["gold_partial"],
                created_by=request.user,
            )
        except Refused as refused:
            problems, status = organizer_problems(refused), refusal_status(refused)
        else:
            messages.success(request, _("Dataset %(name)s imported.") % {"name": dataset.name})
            return redirect("organizer_dataset", pk=dataset.pk)
    return TemplateResponse(
        request, "annotation/organizer/import.html", {"form": form, "problems": problems}, status=status
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def import_gold_upload(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    form = GoldForm(request.POST or None, request.FILES or None)
    problems, status = [], 200
    if request.method == "POST" and form.is_valid():
        try:
            imported = import_gold(
                dataset=dataset,
                gold=uploaded_source(form.cleaned_data["gold"]),
                gold_synthetic=form.cleaned_data["gold_synthetic"],
                partial=form.cleaned_data["partial"],
            )
        except Refused as refused:
            problems, status = organizer_problems(refused), refusal_status(refused)
        else:
            messages.success(request, _(
                "Gold answers added: %(added)d; already there and unchanged: %(unchanged)d; items still "
                "without gold: %(missing)d."
            ) % {"added": imported.added, "unchanged": imported.unchanged, "missing": imported.missing})
            return redirect("organizer_dataset", pk=dataset.pk)
    return TemplateResponse(
        request,
        "annotation/organizer/import_gold.html",
        {"dataset": dataset, "form": form, "problems": problems},
        status=status,
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def assign_annotators(request: HttpRequest, pk: int) -> HttpResponse:
    """Assign (action=assign) or move a departed annotator's unanswered items (action=release)."""
    dataset = get_object_or_404(Dataset, pk=pk)
    action = request.POST.get("action")
    assign_form = AssignForm(request.POST if action == "assign" else None)
    release_form = ReleaseForm(request.POST if action == "release" else None, dataset=dataset)
    form = assign_form if action == "assign" else release_form
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            if action == "assign":
                result = assign(
                    dataset, list(form.cleaned_data["annotators"]), form.cleaned_data["per_item"]
                )
            else:
                result = release_items(dataset, form.cleaned_data["departed"], by=request.user)
        except Refused as refused:
            for message in refused.messages:
                form.add_error(None, message)
            status = refusal_status(refused)
        else:
            messages.success(
                request,
                _("%(count)d assignments added.") % {"count": result.total_added},
            )
            return redirect("organizer_dataset", pk=dataset.pk)
    return TemplateResponse(
        request,
        "annotation/organizer/assign.html",
        {
            "dataset": dataset,
            "assign_form": assign_form,
            "release_form": release_form,
            "progress": annotator_progress(dataset),
        },
        status=status,
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def dataset_sample(request: HttpRequest, pk: int) -> HttpResponse:
    """The dataset's sample: preview a draw's allocation (action=preview), set it (action=set),
    go back to every item (action=all); ?download=ids gives its ids, one a line."""
    dataset = get_object_or_404(Dataset, pk=pk)
    if request.GET.get("download") == "ids":
        response = HttpResponse("".join(f"{item_id}\n" for item_id in sample_ids(dataset)),
                                content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = content_disposition_header(True, f"{dataset.name}.sample.txt")
        return response
    action = request.POST.get("action")
    form = SampleForm(request.POST if action in ("preview", "set") else None)
    preview, status = None, 200
    if request.method == "POST" and (action == "all" or form.is_valid()):
        try:
            if action == "all":
                set_sample(dataset, None)
            elif action == "preview":
                preview = preview_sample(dataset, **form.cleaned_data)
            else:
                set_sample(dataset, **form.cleaned_data)
        except Refused as refused:
            for message in refused.messages:
                form.add_error(None, message)
            status = refusal_status(refused)
        else:
            if action != "preview":
                messages.success(request, _("The sample is set."))
                return redirect("organizer_sample", pk=dataset.pk)
    return TemplateResponse(
        request,
        "annotation/organizer/sample.html",
        {"dataset": dataset, "form": form, "preview": preview, "served": served_items(dataset).count(),
         "items": dataset.items.count()},
        status=status,
    )
