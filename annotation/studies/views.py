"""A panel participant's pages: the entry link (consent, or coming back), and the page that
sends them on through the study and, at its end, back to the panel with their code."""

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from annotation.annotate import queue as queues
from annotation.annotate import routing
from annotation.core.errors import Refused
from annotation.core.http import refusal_status
from annotation.models import Study, StudyParticipant
from annotation.studies import entering

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
            participant = entering.enter(study, entry)
        elif intent == "resume" or known is not None:
            participant = entering.readmitted(study, entry, request.user)
        else:
            raise Http404
    except Refused as refusal:
        return _refused(request, study, refusal)
    if request.user.pk != participant.user_id:
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
