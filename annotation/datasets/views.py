"""Organizer pages: datasets, import, assignment, progress, flags, freeze, export, agreement,
accounts."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from annotation.adjudicate.forms import AdjudicationSettingsForm
from annotation.adjudicate.services import set_adjudication_settings
from annotation.core.errors import Refused
from annotation.core.files import uploaded_source
from annotation.core.http import refusal_status
from annotation.core.roles import organizer_required
from annotation.datasets.assigning import assign, release_items
from annotation.datasets.forms import AssignForm, GoldForm, ImportForm, ReleaseForm, ResolveFlagForm
from annotation.datasets.importing import import_dataset, import_gold
from annotation.datasets.organizing import resolve_flag, set_frozen
from annotation.datasets.progress import (
    annotator_progress,
    dataset_flag,
    dataset_flags,
    dataset_overview,
    datasets_overview,
    open_flag_count,
    withdrawn_items,
)
from annotation.models import Dataset, Flag
from annotation.subtasks.problem_texts import organizer_problems


@organizer_required
@require_http_methods(["GET"])
def dataset_list(request: HttpRequest) -> HttpResponse:
    return TemplateResponse(
        request, "annotation/organizer/dataset_list.html", {"datasets": datasets_overview()}
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def dataset_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The dataset page; POST freezes/unfreezes it, changes its adjudication settings, or
    resolves a flag, perhaps withdrawing its item (htmx: the flag's row)."""
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
            "withdrawn": withdrawn_items(dataset),
        },
    )


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
            count = import_gold(
                dataset=dataset,
                gold=uploaded_source(form.cleaned_data["gold"]),
                gold_synthetic=form.cleaned_data["gold_synthetic"],
            )
        except Refused as refused:
            problems, status = organizer_problems(refused), refusal_status(refused)
        else:
            messages.success(request, _("%(count)d gold answers imported.") % {"count": count})
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
