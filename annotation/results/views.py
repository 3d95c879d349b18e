"""Organizer pages of the human-baseline report: a dataset's report (with model uploads) and
campaigns (their table). Each page also serves its downloads: ?format=json|md|csv|tex, and a
dataset report's plots as SVG in the page's language (?plot=KEY), all from the newest finished
computation (annotation.results.computing), with its age, what changed since and a button to
compute now. A campaign also has its protocol form, and its paper kit and release bundle as zips
(POST: they give pseudonyms), made from a computation of the data as it is."""

import json

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from annotation.adjudicate.selectors import dataset_counts
from annotation.core.errors import Refused
from annotation.core.files import uploaded_source
from annotation.core.http import refusal_status
from annotation.core.roles import organizer_required
from annotation.models import Campaign, CampaignProtocol, Dataset, ModelSubmission, StoredReportPart
from annotation.results import selectors
from annotation.results.agreement import PAIR_AGREEMENT_TEXT, agreement_report
from annotation.results.computing import body_context, report_query, request_report, serve_report
from annotation.results.downloads import complete_items_download, export_download, inputs_download
from annotation.results.exporting import build_export, build_submission
from annotation.results.exports import export_summaries
from annotation.results.formats import CONTENT_TYPES, DIFFICULTY, FORMATS
from annotation.results.forms import CampaignForm, CampaignProtocolForm, KitOptions, ModelSubmissionForm
from annotation.results.paper import paper_zip
from annotation.results.plots import Plot, plot_part_key
from annotation.results.release import campaigned, release_files, zip_bytes, zip_folder
from annotation.results.report import DEFAULT_SEED
from annotation.results.services import create_campaign, delete_model_submission, save_protocol, upload_model_submission
from annotation.subtasks import part
from annotation.subtasks.problem_texts import organizer_problems


class ReportOptions(forms.Form):
    seed = forms.IntegerField(required=False, min_value=0, max_value=2**63 - 1)
    # Leave annotators below the control threshold out of the majority and adjudicated sources.
    exclude_below_control = forms.BooleanField(required=False)
    format = forms.ChoiceField(required=False, choices=[(fmt, fmt) for fmt in FORMATS])
    plot = forms.CharField(required=False, max_length=300)
    # The complete items the pooled sources are scored on, one id a line (`scoring --items`).
    items = forms.BooleanField(required=False)
    # The inputs of the items that count (`scoring dawid-skene --inputs`).
    inputs = forms.BooleanField(required=False)
    # The item difficulty table (CSV): per item the annotators' share right and each model's result.
    difficulty = forms.BooleanField(required=False)


def _options(request: HttpRequest) -> dict:
    form = ReportOptions(request.GET)
    if not form.is_valid():
        raise Http404  # a seed or format no link ever gives
    data = form.cleaned_data
    seed = DEFAULT_SEED if data["seed"] is None else data["seed"]
    exclude = data["exclude_below_control"]
    return {"seed": seed, "exclude_below_control": exclude, "format": data["format"], "plot": data["plot"],
            "items": data["items"], "inputs": data["inputs"], "difficulty": data["difficulty"]}


def _download(content: str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content.encode("utf-8"), content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


def _pending() -> HttpResponse:
    """A download, plot or file asked for before the first computation finished: 202, try again."""
    response = HttpResponse(_("The report is being computed; try again in a moment.") + "\n", status=202,
                            content_type="text/plain; charset=utf-8")
    response["Retry-After"] = "5"
    return response


def _served_context(served, compute_url: str, options: dict) -> dict:
    return {"stored": served.stored, "freshness": served.freshness, "compute_url": compute_url,
            "seed": options["seed"], "exclude_below_control": options["exclude_below_control"]}


@never_cache
@organizer_required
@require_http_methods(["GET", "POST"])
def dataset_report_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The report of a dataset, its newest finished computation; POST uploads a model submission."""
    dataset = get_object_or_404(Dataset, pk=pk)
    options = _options(request)
    report_options = {"seed": options["seed"], "exclude_below_control": options["exclude_below_control"]}
    form = ModelSubmissionForm(request.POST or None, request.FILES or None)
    problems, status = [], 200
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["submission"]
        try:
            model = upload_model_submission(dataset=dataset, name=form.cleaned_data["name"],
                                            submission=uploaded_source(upload),
                                            uploaded_by=request.user)
        except Refused as refused:
            problems, status = refused.problems, refusal_status(refused)
        else:
            request_report(dataset=dataset, **report_options, now_asked=True)
            messages.success(request, _("Model %(name)s added to the report.") % {"name": model.name})
            return redirect("organizer_report", pk=dataset.pk)
    stem = f"{dataset.name}.report"
    if options["format"]:
        served = serve_report(dataset=dataset, **report_options)
        if served.stored is None:
            return _pending()
        return _download(selectors.report_part(served.stored, StoredReportPart.Kind.FILE, options["format"]),
                         CONTENT_TYPES[options["format"]], f"{stem}.{options['format']}")
    if options["difficulty"]:
        served = serve_report(dataset=dataset, **report_options)
        if served.stored is None:
            return _pending()
        return _download(selectors.report_part(served.stored, StoredReportPart.Kind.FILE, DIFFICULTY),
                         CONTENT_TYPES["csv"], f"{stem}.difficulty.csv")
    if options["items"]:
        served = serve_report(dataset=dataset, **report_options, fields=("report",))
        if served.stored is None:
            return _pending()
        return complete_items_download(dataset, served.stored)
    if options["inputs"]:
        return inputs_download(dataset)
    if options["plot"]:
        served = serve_report(dataset=dataset, **report_options)
        if served.stored is None:
            return _pending()
        svg = selectors.report_part(served.stored, StoredReportPart.Kind.PLOT, plot_part_key(get_language(), options["plot"]))
        if svg is None:
            raise Http404
        return _download(svg, "image/svg+xml; charset=utf-8", f"{stem}.{options['plot'].replace(':', '-')}.svg")
    served = serve_report(dataset=dataset, **report_options)
    return TemplateResponse(request, "annotation/organizer/report.html", {
        "dataset": dataset, "form": form, "problems": problems, **_body(served),
        **_served_context(served, reverse("organizer_report_compute", args=[dataset.pk]), options),
    }, status=status if served.stored or status != 200 else 202)


@organizer_required
@require_http_methods(["GET", "POST"])
def model_submission_removal(request: HttpRequest, pk: int, model_pk: int) -> HttpResponse:
    """Delete a model's submission: GET is the confirmation, POST deletes it (recorded)."""
    submission = get_object_or_404(ModelSubmission, pk=model_pk, dataset_id=pk)
    if request.method == "POST":
        delete_model_submission(submission, by=request.user)
        messages.success(request, _("Model %(name)s deleted from the report.") % {"name": submission.name})
        return redirect("organizer_dataset", pk=pk)
    return TemplateResponse(request, "annotation/organizer/model_removal.html", {"submission": submission})


def _body(served) -> dict:
    """The stored report's body in the page's language (drawn when it was computed), or what
    draws it (a language without a stored body), or nothing before the first computation."""
    if served.stored is None:
        return {"report": None, "body": None}
    body = selectors.report_part(served.stored, StoredReportPart.Kind.PAGE, get_language())
    if body is not None:
        return {"report": True, "body": mark_safe(body)}  # our own page, drawn by rendered_body
    stored = selectors.stored_report(served.stored.pk)
    # The report as written (the database's JSON keeps no key order).
    report = json.loads(selectors.report_part(stored, StoredReportPart.Kind.API, ""))
    plots = [Plot(**plot) for plot in stored.plots if plot.get("language", "en") == get_language()]
    return {**body_context(stored, report, plots), "body": None}


def _compute_options(request: HttpRequest) -> dict:
    form = ReportOptions(request.POST)
    if not form.is_valid():
        raise Http404  # a seed no page ever posts
    seed = form.cleaned_data["seed"]
    return {"seed": DEFAULT_SEED if seed is None else seed,
            "exclude_below_control": form.cleaned_data["exclude_below_control"]}


def _back(name: str, pk: int, options: dict) -> HttpResponse:
    return redirect(f"{reverse(name, args=[pk])}?{report_query(**options)}")


def _computing_message(request: HttpRequest, started) -> None:
    if started is None:
        messages.info(request, _("The report is up to date or being computed already."))
    else:
        messages.success(request, _("The report is being computed."))


@organizer_required
@require_http_methods(["POST"])
def dataset_report_compute(request: HttpRequest, pk: int) -> HttpResponse:
    """The button "compute now": start the computation of the dataset's report on the data as it is."""
    dataset = get_object_or_404(Dataset, pk=pk)
    options = _compute_options(request)
    _computing_message(request, request_report(dataset=dataset, **options, now_asked=True))
    return _back("organizer_report", dataset.pk, options)


@organizer_required
@require_http_methods(["POST"])
def campaign_compute(request: HttpRequest, pk: int) -> HttpResponse:
    """The button "compute now" of the campaign table."""
    campaign = get_object_or_404(Campaign, pk=pk)
    options = _compute_options(request)
    _computing_message(request, request_report(campaign=campaign, **options, now_asked=True))
    return _back("organizer_campaign", campaign.pk, options)


@never_cache
@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_list(request: HttpRequest) -> HttpResponse:
    """The campaigns; POST creates one."""
    form = CampaignForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            campaign = create_campaign(name=form.cleaned_data["name"], datasets=list(form.cleaned_data["datasets"]),
                                       created_by=request.user, human_source=form.cleaned_data["human_source"])
        except Refused as refused:
            for message in refused.messages:
                form.add_error(None, message)
            status = refusal_status(refused)
        else:
            return redirect("organizer_campaign", pk=campaign.pk)
    return TemplateResponse(request, "annotation/organizer/campaign_list.html",
                            {"campaigns": selectors.campaigns(), "form": form}, status=status)


@never_cache
@organizer_required
@require_http_methods(["GET"])
def campaign_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign table (the table a paper prints) and its downloads."""
    campaign = get_object_or_404(Campaign, pk=pk)
    options = _options(request)
    report_options = {"seed": options["seed"], "exclude_below_control": options["exclude_below_control"]}
    if options["format"]:
        served = serve_report(campaign=campaign, **report_options)
        if served.stored is None:
            return _pending()
        return _download(selectors.report_part(served.stored, StoredReportPart.Kind.FILE, options["format"]),
                         CONTENT_TYPES[options["format"]], f"{campaign.name}.campaign.{options['format']}")
    served = serve_report(campaign=campaign, **report_options)
    return TemplateResponse(request, "annotation/organizer/campaign.html", {
        "campaign": campaign, **_body(served), "kit_options": KitOptions(initial={"seed": options["seed"]}),
        **_served_context(served, reverse("organizer_campaign_compute", args=[campaign.pk]), options),
    }, status=200 if served.stored else 202)


@never_cache
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


@never_cache
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
    context = {"dataset": dataset, "report": report, "kind": kind, "shown": shown,
               "cases": dataset_counts(dataset.pk) if not request.htmx else None,
               "pair_agreement_text": part(dataset.subtask, "PAIR_AGREEMENT_TEXT", PAIR_AGREEMENT_TEXT)}
    if request.htmx:
        return TemplateResponse(request, "annotation/organizer/_disagreements.html", context)
    return TemplateResponse(request, "annotation/organizer/agreement.html", context)


@never_cache
@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_protocol(request: HttpRequest, pk: int) -> HttpResponse:
    """What only the organizer knows of the campaign (recruitment, pay, consent, demographics), as
    the paper kit and the release bundle state it; POST saves it."""
    campaign = get_object_or_404(Campaign, pk=pk)
    protocol = CampaignProtocol.objects.filter(campaign=campaign).first()
    form = CampaignProtocolForm(request.POST or None, instance=protocol)
    if request.method == "POST":
        if form.is_valid():
            save_protocol(form, campaign, request.user)
            messages.success(request, _("The campaign's protocol is saved."))
            return redirect("organizer_campaign", pk=campaign.pk)
    return TemplateResponse(request, "annotation/organizer/campaign_protocol.html", {"campaign": campaign, "form": form},
                            status=422 if form.errors else 200)


def _current_table(campaign: Campaign, seed: int) -> dict | None:
    """The campaign table of the data as it is (its computation started when missing), or None
    while it is computed."""
    options = {"seed": seed, "exclude_below_control": False}
    served = serve_report(campaign=campaign, **options)
    if served.stored is None or not served.freshness.current:
        request_report(campaign=campaign, **options, now_asked=True)  # inline with the tests' backend
        served = serve_report(campaign=campaign, **options)
        if served.stored is None or not served.freshness.current:
            return None
    return json.loads(selectors.report_part(served.stored, StoredReportPart.Kind.API, ""))


def _kit_options(request: HttpRequest) -> dict:
    form = KitOptions(request.POST)
    if not form.is_valid():
        raise Http404  # a seed no page ever posts
    data = form.cleaned_data
    return {**data, "seed": DEFAULT_SEED if data["seed"] is None else data["seed"]}


def _zip(data: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@never_cache
@organizer_required
@require_http_methods(["POST"])
def campaign_paper(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's paper kit as a zip (annotation.results.paper), in English; 202 while the
    table of the data as it is is computed."""
    campaign = get_object_or_404(Campaign, pk=pk)
    options = _kit_options(request)
    table = _current_table(campaign, options["seed"])
    if table is None:
        return _pending()
    data = paper_zip(campaigned(campaign, table), with_free_text=options["with_free_text"])
    return _zip(data, f"{zip_folder(campaign, 'paper')}.zip")


@never_cache
@organizer_required
@require_http_methods(["POST"])
def campaign_release(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's release bundle as a zip (annotation.results.release); 202 while the table
    of the data as it is is computed."""
    campaign = get_object_or_404(Campaign, pk=pk)
    options = _kit_options(request)
    table = _current_table(campaign, options["seed"])
    if table is None:
        return _pending()
    folder = zip_folder(campaign, "release")
    return _zip(zip_bytes(release_files(campaigned(campaign, table), with_gold=options["with_gold"]), folder),
                f"{folder}.zip")
