"""Organizer pages: datasets, import, assignment, progress, flags, freeze, export, agreement,
accounts."""


from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from annotation.forms import (
    AccountForm,
    AccountsCsvForm,
    AdjudicationSettingsForm,
    AssignForm,
    GoldForm,
    ImportForm,
    ReleaseForm,
    ResolveFlagForm,
    upload_limit_sentence,
)
from annotation.errors import Refused
from annotation.http import export_download, refusal_status
from annotation.models import Dataset, Flag
from annotation.problem_texts import for_organizer
from annotation.roles import ORGANIZER, role_required
from annotation.selectors.accounts import accounts_by_role
from annotation.selectors.agreement import agreement_report
from annotation.selectors.progress import (
    annotator_progress,
    dataset_flags,
    dataset_overview,
    datasets_overview,
    withdrawn_items,
)
from annotation.services.accounts import create_account, create_accounts_from_csv, new_password_link, set_active
from annotation.services.assigning import assign, release
from annotation.selectors.exports import export_summaries
from annotation.services.exporting import build_export, build_submission
from annotation.services.importing import SourceFile, import_dataset, import_gold
from annotation.services.organizing import resolve_flag, set_adjudication_settings, set_frozen

organizer_required = role_required(ORGANIZER)


def organizer_problems(refused: Refused) -> list:
    """The refusal's problems in the organizer's language (file, line and field kept)."""
    return [for_organizer(problem) for problem in refused.problems]


def _source(upload: UploadedFile) -> SourceFile:
    """Read from the upload's temporary file, line by line (small uploads stay in memory)."""
    if hasattr(upload, "temporary_file_path"):
        return SourceFile(name=upload.name, path=upload.temporary_file_path())
    return SourceFile(name=upload.name, data=upload.read())


def upload_too_large(request: HttpRequest) -> bool:
    """Whether the request body is larger than the upload limit (known from its Content-Length
    before any of it is read: the refusal comes at once, not after the upload)."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) > settings.POLIS_MAX_UPLOAD_BYTES
    except ValueError:
        return False


def refuse_upload(request: HttpRequest, template: str, context: dict) -> TemplateResponse:
    messages.error(request, upload_limit_sentence())
    response = TemplateResponse(request, template, context, status=413)
    # The body is not read: the connection cannot be used for another request.
    response["Connection"] = "close"
    return response


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
                flag = Flag.objects.select_related("item", "raised_by", "resolved_by").get(pk=flag.pk)
                # The row, and out of band the heading's count of open flags.
                open_flag_count = Flag.objects.filter(item__dataset=dataset, resolved_at__isnull=True).count()
                return TemplateResponse(
                    request,
                    "annotation/organizer/_flag.html",
                    {"dataset": dataset, "flag": flag, "open_flag_count": open_flag_count},
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
    if request.method == "POST" and upload_too_large(request):
        return refuse_upload(request, "annotation/organizer/import.html", {"form": ImportForm(), "problems": []})
    form = ImportForm(request.POST or None, request.FILES or None)
    problems, status = [], 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            dataset = import_dataset(
                subtask=data["subtask"],
                name=data["name"],
                inputs=_source(data["inputs"]),
                gold=_source(data["gold"]) if data["gold"] else None,
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
    if request.method == "POST" and upload_too_large(request):
        return refuse_upload(
            request, "annotation/organizer/import_gold.html", {"dataset": dataset, "form": GoldForm(), "problems": []}
        )
    form = GoldForm(request.POST or None, request.FILES or None)
    problems, status = [], 200
    if request.method == "POST" and form.is_valid():
        try:
            count = import_gold(
                dataset=dataset,
                gold=_source(form.cleaned_data["gold"]),
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
                result = release(dataset, form.cleaned_data["departed"], by=request.user)
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
@require_http_methods(["GET"])
def export_submission(request: HttpRequest, pk: int, annotator: str) -> HttpResponse:
    """The export page (answered, the count of unanswered, problems); ?download=1 sends the
    submission file, ?download=unanswered the ids of the unanswered items, one a line. With no
    submitted answer there is no file: the page says so."""
    dataset = get_object_or_404(Dataset, pk=pk)
    user = get_object_or_404(User, username=annotator)
    try:
        submission = build_submission(dataset, user)
    except Refused as refused:
        return TemplateResponse(
            request,
            "annotation/organizer/export.html",
            {"dataset": dataset, "annotator": user, "problems": organizer_problems(refused)},
            status=refusal_status(refused),
        )
    download = request.GET.get("download")
    if download == "unanswered":
        response = HttpResponse(
            "".join(f"{external_id}\n" for external_id in submission.unanswered), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = content_disposition_header(True, submission.unanswered_filename)
        return response
    if download and submission.lines:
        response = HttpResponse(submission.to_bytes(), content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = content_disposition_header(True, submission.filename)
        return response
    return TemplateResponse(
        request,
        "annotation/organizer/export.html",
        {"dataset": dataset, "annotator": user, "submission": submission},
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def accounts(request: HttpRequest) -> HttpResponse:
    """Accounts by role. POST action=create (one), csv (many), link (a new password link),
    deactivate, activate, release (an inactive annotator's unanswered items of one dataset).
    Password links are shown in the answer to the POST that made them, and never again."""
    action = request.POST.get("action")
    one_form = AccountForm(request.POST if action == "create" else None)
    csv_form = AccountsCsvForm(request.POST if action == "csv" else None, request.FILES if action == "csv" else None)
    problems, status = [], 200
    links: list[tuple[User, str]] = []
    if request.method == "POST":
        if action in ("create", "csv"):
            form = one_form if action == "create" else csv_form
            if form.is_valid():
                data = form.cleaned_data
                try:
                    if action == "create":
                        made = [create_account(name=data["name"], email=data["email"], role=data["role"])]
                    else:
                        made = create_accounts_from_csv(source=_source(data["accounts"]), role=data["role"])
                except Refused as refused:
                    problems, status = refused.problems, refusal_status(refused)
                else:
                    links = [(new.user, request.build_absolute_uri(new.password_link)) for new in made]
                    one_form, csv_form = AccountForm(), AccountsCsvForm()
        elif action in ("link", "deactivate", "activate", "release"):
            user = _posted_object(request, User, "user")
            try:
                if action == "link":
                    links = [(user, request.build_absolute_uri(new_password_link(user, by=request.user)))]
                elif action == "release":
                    result = release(_posted_object(request, Dataset, "dataset"), user, by=request.user)
                    messages.success(request, _("%(count)d assignments added.") % {"count": result.total_added})
                else:
                    set_active(user, action == "activate", by=request.user)
                    messages.success(
                        request,
                        (_("%(name)s can log in again.") if action == "activate" else _("%(name)s can no longer log in."))
                        % {"name": user.get_username()},
                    )
            except Refused as refused:
                problems, status = refused.problems, refusal_status(refused)
            else:
                if action != "link":
                    return redirect("organizer_accounts")
        else:
            return HttpResponse(status=400)
    return TemplateResponse(
        request,
        "annotation/organizer/accounts.html",
        {
            "roles": accounts_by_role(request.user),
            "one_form": one_form,
            "csv_form": csv_form,
            "problems": problems,
            "links": links,
            "link_days": settings.PASSWORD_RESET_TIMEOUT // 86400,
        },
        status=status,
    )


def _posted_object(request: HttpRequest, model, field: str):
    pk = request.POST.get(field, "")
    if not pk.isdecimal():  # not an id at all: no such object, rather than a crash
        raise Http404
    return get_object_or_404(model, pk=int(pk))


@organizer_required
@require_http_methods(["GET"])
def dataset_exports(request: HttpRequest, pk: int) -> HttpResponse:
    """Every export source of the dataset with its counts; ?source=S[&file_format=F][&fill=adjudicated]
    streams that export's file, with &left_out=1 the list of the items it leaves out (and fills)."""
    dataset = get_object_or_404(Dataset, pk=pk)
    source = request.GET.get("source")
    problems, status = [], 200
    if source:
        try:
            export = build_export(dataset, source, request.GET.get("file_format", "jsonl"), request.GET.get("fill") or None)
        except Refused as refused:
            problems, status = refused.problems, refusal_status(refused)
        else:
            return export_download(export, left_out=bool(request.GET.get("left_out")))
    return TemplateResponse(
        request,
        "annotation/organizer/exports.html",
        {"dataset": dataset, "sources": export_summaries(dataset), "problems": problems},
        status=status,
    )


@organizer_required
@require_http_methods(["GET"])
def dataset_agreement(request: HttpRequest, pk: int) -> HttpResponse:
    """How far the annotators agree; ?kind= narrows the disagreement list (htmx: the list only)."""
    dataset = get_object_or_404(Dataset, pk=pk)
    report = agreement_report(dataset)
    kind = request.GET.get("kind", "")
    shown = [disagreement for disagreement in report.disagreements if not kind or kind in disagreement.kinds]
    context = {"dataset": dataset, "report": report, "kind": kind, "shown": shown}
    if request.htmx:
        return TemplateResponse(request, "annotation/organizer/_disagreements.html", context)
    return TemplateResponse(request, "annotation/organizer/agreement.html", context)
