"""A panel study's pages. The participant's: the entry link (consent, or coming back), and the
page that sends them on through the study and, at its end, back to the panel with their code.
The organizer's: the list of studies, a study's set-up, its page (participants, figures, refused
entries, places left, the entry link to copy; ?download=bonus|approve|review the payment files),
its state (POST), the reconciliation with the panel's export (POST) and deleting the panel ids
after payment (GET the confirmation, POST)."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.annotate import queue as queues
from annotation.annotate import routing
from annotation.core.errors import Refused
from annotation.core.files import uploaded_source
from annotation.core.http import refusal_status
from annotation.core.roles import organizer_required
from annotation.models import Study, StudyParticipant
from annotation.studies import entering, selectors, services
from annotation.studies.forms import DownloadForm, ReconcileForm, StateForm, StudyForm, step_forms, steps_of
from annotation.subtasks.problem_texts import organizer_problems

# The participant's session is their account's (they have no password): logged in by the entry.
PARTICIPANT_BACKEND = "annotation.core.roles.UserWithRolesBackend"


def _refused(request: HttpRequest, study: Study, refusal: Refused) -> TemplateResponse:
    return TemplateResponse(request, "annotation/studies/refused.html", {"study": study, "problems": refusal.messages},
                            status=refusal_status(refusal))


@require_http_methods(["GET", "POST"])
def study_entry(request: HttpRequest, token: str) -> HttpResponse:
    """The entry link a panel sends its participants to, with their ids in the query string.
    GET shows the consent (or, for an id that entered before, the way back in) and writes
    nothing; POST intent=consent enters, intent=decline shows the no-consent code, intent=resume
    readmits the id's own session."""
    study = get_object_or_404(Study, token=token)
    try:
        entry = entering.panel_entry(study, request.GET)
    except Refused as refusal:
        return _refused(request, study, refusal)
    known = entering.known_participant(study, entry)
    if request.method == "GET":
        if known is not None and request.user.is_authenticated and request.user.pk == known.user_id:
            return redirect("study_continue", token)
        if known is None:
            try:
                entering.check_open(study)
            except Refused as refusal:
                return _refused(request, study, refusal)
        return TemplateResponse(request, "annotation/studies/entry.html", {
            "study": study, "returning": known is not None, "query": request.GET.urlencode(),
        })
    intent = request.POST.get("intent")
    try:
        if intent == "decline" and known is None:
            entering.decline(study, entry)
            return _finish_page(request, study, entering.NO_CONSENT)
        if intent == "consent" and known is None:
            return _consented(request, study, entry)
        if intent == "resume" or known is not None:
            participant = entering.readmitted(study, entry, request.user)
        else:
            raise Http404
    except Refused as refusal:
        return _refused(request, study, refusal)
    if request.user.pk != participant.user_id:
        login(request, participant.user, backend=PARTICIPANT_BACKEND)
    return redirect(_first_page(participant))


def _consented(request: HttpRequest, study: Study, entry: entering.PanelEntry) -> HttpResponse:
    """The consent's POST: the entry, the participant's login and the reservation of their
    first item committed together, once (they were four commits, and an arrival burst of
    entries waited on them). A refused entry keeps what refusing it wrote (a full study closed)."""
    with transaction.atomic():
        try:
            participant = entering.enter(study, entry)
        except Refused as refusal:
            return _refused(request, study, refusal)
        login(request, participant.user, backend=PARTICIPANT_BACKEND)
        return redirect(_first_page(participant))


def _first_page(participant: StudyParticipant) -> str:
    """Where the entry's POST sends the participant: straight to their next item when their
    current dataset is open to them (chosen here: one round trip instead of three, the continue
    page, the dataset's start page and its POST), else the continue page, which knows the rest."""
    standing = entering.standing(participant)
    if standing.state == entering.WORKING and queues.is_qualified(participant.user, standing.dataset_id):
        served = routing.next_item(participant.user, standing.dataset_id)
        if served is not None and served.state == routing.ITEM:
            return reverse("annotate_item", args=[standing.dataset_id, served.position])
    return reverse("study_continue", args=[participant.study.token])


@login_required
@require_GET
def study_continue(request: HttpRequest, token: str) -> HttpResponse:
    """Where the participant goes next: the current dataset's training round or items, or,
    once the study is over for them, the page with their code."""
    participant = (StudyParticipant.objects.select_related("study").filter(user=request.user, study__token=token)
                   .first())
    if participant is None:
        raise Http404
    standing = entering.standing(participant)
    if standing.state == entering.WORKING:
        return redirect("annotate_continue", standing.dataset_id)
    return _finish_page(request, participant.study, standing.state)


def _finish_page(request: HttpRequest, study: Study, state: str) -> TemplateResponse:
    code = {entering.COMPLETED: study.completed_code, entering.SCREENED_OUT: study.screened_out_code,
            entering.NO_CONSENT: study.no_consent_code}.get(state)
    return TemplateResponse(request, "annotation/studies/finished.html", {
        "study": study, "state": state, "code": code,
        "return_link": entering.return_link(study, code) if code else None,
    })


@never_cache
@organizer_required
@require_GET
def study_list(request: HttpRequest) -> HttpResponse:
    """The studies, each with its state, datasets and link to its page."""
    return TemplateResponse(request, "annotation/studies/organizer/list.html", {"studies": selectors.studies()})


@never_cache
@organizer_required
@require_http_methods(["GET", "POST"])
def study_settings(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    """A new study's set-up (no ``pk``) or a study's settings; POST saves them, all or nothing."""
    study = None if pk is None else get_object_or_404(Study, pk=pk)
    data = request.POST if request.method == "POST" else None
    form, steps = StudyForm(data, study), step_forms(study, data)
    problems, status = [], 200
    if request.method == "POST":
        if form.is_valid() and steps.is_valid():
            settings = {name: form.cleaned_data[name] for name in services.SETTINGS}
            try:
                saved = services.save_study(study, settings, steps_of(steps), by=request.user)
            except Refused as refused:
                problems, status = _on_fields(form, refused), refusal_status(refused)
            else:
                messages.success(request, _("Study %(name)s saved.") % {"name": saved.name})
                return redirect("organizer_study", pk=saved.pk)
        else:
            status = 422
    return TemplateResponse(request, "annotation/studies/organizer/settings.html",
                            {"study": study, "form": form, "steps": steps, "problems": problems}, status=status)


def _on_fields(form, refused: Refused) -> list:
    """The refusal's problems about a field of ``form`` become that field's errors (shown
    beside it, named by its label); the others are returned for the problem list."""
    others = []
    for found in organizer_problems(refused):
        if found.field in form.fields:
            form.add_error(found.field, found.message)
        else:
            others.append(found)
    return others


@never_cache
@organizer_required
@require_GET
def study_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The study's participants by status, its figures, refused entries and places left, its
    entry link; ?download=bonus|approve|review sends that payment file (CSV)."""
    study = get_object_or_404(Study, pk=pk)
    options = DownloadForm(request.GET)
    if not options.is_valid():
        raise Http404  # a file no link names
    rows = selectors.participant_rows(study)
    kind = options.cleaned_data["download"]
    if kind:
        try:
            content = selectors.payment_file(study, rows, kind)
        except Refused as refused:
            return _study_page(request, study, rows, organizer_problems(refused), refusal_status(refused))
        response = HttpResponse(content.encode("utf-8"), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = content_disposition_header(True, f"{study.name}.{kind}.csv")
        return response
    return _study_page(request, study, rows)


def _study_page(request: HttpRequest, study: Study, rows: list, problems: list | None = None, status: int = 200,
                reconcile_form: ReconcileForm | None = None) -> TemplateResponse:
    entry = request.build_absolute_uri(reverse("study_entry", args=[study.token]))
    return TemplateResponse(request, "annotation/studies/organizer/study.html", {
        "study": study, "steps": entering.steps_with_places(study),
        "page": selectors.study_page(study, rows), "refusals": selectors.refused_entries(study),
        "entry_link": selectors.entry_link(study, entry),
        "problems": problems or [], "reconcile_form": reconcile_form or ReconcileForm(),
        "states": Study.State,
    }, status=status)


@organizer_required
@require_POST
def study_state(request: HttpRequest, pk: int) -> HttpResponse:
    """Open (reopen), pause or close the study."""
    study = get_object_or_404(Study, pk=pk)
    form = StateForm(request.POST)
    if not form.is_valid():
        return HttpResponse(status=400)
    services.set_state(study, form.cleaned_data["state"])
    messages.success(request, _("The study is %(state)s now.") % {"state": Study.State(form.cleaned_data["state"]).label})
    return redirect("organizer_study", pk=study.pk)


@never_cache
@organizer_required
@require_POST
def study_reconcile(request: HttpRequest, pk: int) -> HttpResponse:
    """Reconcile the participants with the panel's submissions export; a refused file is listed
    on the study page (file, line, field) and changes nothing."""
    study = get_object_or_404(Study, pk=pk)
    form = ReconcileForm(request.POST, request.FILES)
    if not form.is_valid():
        return _study_page(request, study, selectors.participant_rows(study), status=422, reconcile_form=form)
    try:
        done = services.reconcile(study, uploaded_source(form.cleaned_data["export"]))
    except Refused as refused:
        return _study_page(request, study, selectors.participant_rows(study), organizer_problems(refused),
                           refusal_status(refused), form)
    messages.success(request, _(
        "Reconciled with the panel's export: participants found in it: %(found)d; left out (not in it): "
        "%(left_out)d; ids of the export that are no participant of the study: %(unknown)d."
    ) % {"found": done.found, "left_out": done.left_out, "unknown": done.unknown})
    return redirect("organizer_study", pk=study.pk)


@never_cache
@organizer_required
@require_http_methods(["GET", "POST"])
def study_delete_ids(request: HttpRequest, pk: int) -> HttpResponse:
    """Delete the panel ids after payment: GET is the confirmation, POST deletes them."""
    study = get_object_or_404(Study, pk=pk)
    if request.method == "POST":
        deleted = services.delete_panel_ids(study)
        messages.success(request, _("Panel ids deleted: %(count)d; the accounts and pseudonyms stay.")
                         % {"count": deleted})
        return redirect("organizer_study", pk=study.pk)
    return TemplateResponse(request, "annotation/studies/organizer/delete_ids.html", {"study": study})
