"""A panel participant's way in and through a study (services: the writes): the entry link's
parameters checked, consent given (an account of their own) or declined (only counted), a
re-entry admitted only in the session the id first entered or with its panel session id, and
each step of the study finished, screened out or past the deadline.

What the binding protects: once an id has entered, nobody else (another browser, another
session of the panel) can take its place or read its answers. What it cannot: anyone holding
the study link can enter with an id that has not entered yet (the panel's ids are not secret
to us). Reconciliation closes that gap (annotation.studies.services.reconcile): a participant the
panel's own export does not list is left out of exports, reports and payment files.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from urllib.parse import quote

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.accounts.pseudonyms import campaign_pseudonyms
from annotation.core import sql_rows
from annotation.core.errors import Refused
from annotation.core.roles import ANNOTATOR, give_first_role
from annotation.datasets.assigning import join
from annotation.models import (
    Campaign,
    Dataset,
    Item,
    RoutedAnnotator,
    RoutedItem,
    Study,
    StudyDataset,
    StudyParticipant,
    StudyRefusal,
    TrainingRound,
)

# The longest panel id or session id kept (the model's columns).
MAX_ID_LENGTH = 100


@dataclass(frozen=True)
class PanelEntry:
    """The panel's parameters of one entry link."""

    participant_id: str
    study_id: str
    session_id: str


def test_ids(study: Study) -> set[str]:
    return {line.strip() for line in study.test_ids.splitlines() if line.strip()}


def is_test(study: Study, entry: PanelEntry) -> bool:
    """A preview or test entry (an id the organizer listed): admitted, never counted."""
    return entry.participant_id in test_ids(study)


def panel_entry(study: Study, parameters: Mapping[str, str]) -> PanelEntry:
    """The entry's panel parameters (the study's names for them); raises Refused for a missing
    or malformed participant id (a test id passes as it is) or a study id not the study's."""
    entry = PanelEntry(
        participant_id=parameters.get(study.participant_parameter, "").strip(),
        study_id=parameters.get(study.study_parameter, "").strip(),
        session_id=parameters.get(study.session_parameter, "").strip()[:MAX_ID_LENGTH],
    )
    if not entry.participant_id:
        raise Refused.of("study_no_participant_id", study.participant_parameter)
    if not is_test(study, entry) and (len(entry.participant_id) > MAX_ID_LENGTH
                                      or not re.fullmatch(study.participant_id_pattern, entry.participant_id)):
        raise Refused.of("study_malformed_participant_id", study.participant_parameter,
                         pattern=study.participant_id_pattern)
    if study.panel_study_id and entry.study_id != study.panel_study_id:
        raise Refused.of("study_wrong_study_id", study.study_parameter)
    return entry


def check_open(study: Study) -> None:
    """Raises Refused unless the study takes new participants."""
    if study.state == Study.State.PAUSED:
        raise Refused.of("study_paused")
    if study.state == Study.State.CLOSED:
        raise Refused.of("study_closed")


def known_participant(study: Study, entry: PanelEntry) -> StudyParticipant | None:
    """The participant the entry's id entered as (None: it has not entered, or it is a test id)."""
    if is_test(study, entry):
        return None
    return StudyParticipant.objects.select_related("user").filter(study=study, panel_id=entry.participant_id).first()


def readmitted(study: Study, entry: PanelEntry, session_user: User) -> StudyParticipant:
    """The participant whose id entered before, if this is their session (``session_user``) or
    their panel session; else the refusal is recorded for the organizer and Refused raised."""
    participant = known_participant(study, entry)
    if participant is None:
        raise Refused.of("study_not_entered")
    same_session = session_user.is_authenticated and session_user.pk == participant.user_id
    same_panel_session = bool(entry.session_id) and entry.session_id == participant.panel_session
    if same_session or same_panel_session:
        return participant
    StudyRefusal.objects.create(study=study, panel_id=entry.participant_id, panel_session=entry.session_id,
                                reason=StudyRefusal.Reason.OTHER_SESSION)
    raise Refused.of("study_other_session")


def decline(study: Study, entry: PanelEntry) -> None:
    """The consent declined: counted (a test entry not even that), nothing else kept."""
    if not is_test(study, entry):
        Study.objects.filter(pk=study.pk).update(declined=F("declined") + 1)


def steps_with_places(study: Study) -> list[StudyDataset]:
    """The study's steps, with their datasets, each with ``places_left``: how many more item
    places the study's next participant could take in its dataset, the places free below k
    (k minus answers and reservations, per item short of k) minus what the participants at
    work may still take (their quota minus the positions they were given)."""
    steps = list(study.steps.select_related("dataset"))
    with connection.cursor() as cursor:
        cursor.execute(_places_left_sql(), {"study": study.pk, "now": timezone.now()})
        left = dict(cursor.fetchall())
    for step in steps:
        # Below 0 when the participants at work may take more than is free now (items withdrawn
        # since they entered): no place for the next one, and none to show as negative.
        step.places_left = max(0, left[step.dataset_id])
    return steps


@cache
def _places_left_sql() -> str:
    # Hand-written: every entry asks, and the ORM took longer to build the two subqueries
    # (grouped, correlated) than PostgreSQL took to answer them. CASE, not GREATEST: the same
    # SQL on SQLite (the demo).
    items, annotators = sql_rows.table(RoutedItem), sql_rows.table(RoutedAnnotator)
    return f"""SELECT s.dataset_id,
            COALESCE((SELECT SUM(CASE WHEN r.submitted + r.reserved < d.answers_per_item
                                      THEN d.answers_per_item - r.submitted - r.reserved ELSE 0 END)
                      FROM {items} r JOIN {sql_rows.table(Item)} i ON i.id = r.item_id AND i.withdrawn_at IS NULL
                      WHERE r.dataset_id = s.dataset_id AND r.pilot_rank IS NULL AND NOT r.complete), 0)
            - COALESCE((SELECT SUM(CASE WHEN m.served < m.quota THEN m.quota - m.served ELSE 0 END)
                        FROM {annotators} m JOIN {sql_rows.table(StudyParticipant)} p ON p.user_id = m.annotator_id
                        WHERE m.dataset_id = s.dataset_id AND p.study_id = s.study_id AND p.completed_at IS NULL
                          AND p.screened_out_at IS NULL AND p.deadline > %(now)s), 0)
        FROM {sql_rows.table(StudyDataset)} s JOIN {sql_rows.table(Dataset)} d ON d.id = s.dataset_id
        WHERE s.study_id = %(study)s"""


def close_if_full(study: Study, steps: list[StudyDataset]) -> bool:
    """Close the study if the items left cannot fill one more participant's quota of some
    dataset (``steps``: steps_with_places'; True: it is closed now)."""
    if all(step.places_left >= step.quota for step in steps):
        return False
    Study.objects.filter(pk=study.pk, state=Study.State.OPEN).update(state=Study.State.CLOSED, closed_by_itself=True)
    return True


def participant_username(study: Study) -> str:
    """A new participant's username: the study and random letters, never the panel's id."""
    return f"study{study.pk}-{secrets.token_hex(5)}"


def enter(study: Study, entry: PanelEntry, now: datetime | None = None) -> StudyParticipant:
    """The consent given: a participant account (an annotator without password or e-mail,
    named by the campaign's pseudonym where the study has a campaign) joined to each of the
    study's datasets with its quota and the study's deadline. Raises Refused when the study is
    not open, is full (then it closes), or the id entered meanwhile."""
    now = now or timezone.now()
    check_open(study)
    steps = steps_with_places(study)
    if close_if_full(study, steps):
        raise Refused.of("study_closed")
    test = is_test(study, entry)
    try:
        with transaction.atomic():
            user = User(username=participant_username(study))
            user.set_unusable_password()
            user.save()
            give_first_role(user, ANNOTATOR)
            participant = StudyParticipant.objects.create(
                study=study, user=user, panel_id=None if test else entry.participant_id,
                panel_session=entry.session_id, test=test, entered_at=now,
                deadline=now + timedelta(minutes=study.deadline_minutes),
            )
            for step in steps:
                join(step.dataset, [user], quota=step.quota, deadline=participant.deadline)
            if study.campaign_id is not None:
                # The campaign's row locked: entries that name people at once take numbers in turn.
                Campaign.objects.select_for_update().get(pk=study.campaign_id)
                campaign_pseudonyms(study.campaign, [user.username])
    except IntegrityError:  # the same id entered in another request meanwhile
        raise Refused.of("study_other_session") from None
    return participant


# What the participant's continue page shows, or where it sends them (NO_CONSENT: the page of
# an entry that declined, which has no participant).
COMPLETED, SCREENED_OUT, PAST_DEADLINE, WORKING = "completed", "screened_out", "past_deadline", "working"
NO_CONSENT = "no_consent"


@dataclass(frozen=True)
class Standing:
    state: str  # COMPLETED, SCREENED_OUT, PAST_DEADLINE or WORKING
    dataset_id: int | None = None  # WORKING: the dataset of their current step


def standing(participant: StudyParticipant, now: datetime | None = None) -> Standing:
    """Where the participant stands (a read): finished, screened out, out of time, or at work on
    the first dataset of the study that still has something for them."""
    now = now or timezone.now()
    if participant.completed_at is not None:
        return Standing(COMPLETED)
    if participant.screened_out_at is not None:
        return Standing(SCREENED_OUT)
    if now >= participant.deadline:
        return Standing(PAST_DEADLINE)
    steps = list(participant.study.steps.values_list("dataset_id", flat=True))
    if participant.steps_done >= len(steps):
        return Standing(COMPLETED)
    return Standing(WORKING, steps[participant.steps_done])


def queue_finished(annotator: User, dataset, now: datetime | None = None) -> None:
    """Routing has nothing more for the annotator in ``dataset``: for a study participant, the
    step is done; the last one done (within their time) completes the study."""
    now = now or timezone.now()
    with transaction.atomic():
        participant = (StudyParticipant.objects.select_for_update()
                       .filter(user=annotator, completed_at__isnull=True, screened_out_at__isnull=True).first())
        if participant is None:
            return
        steps = list(participant.study.steps.values_list("dataset_id", flat=True))
        if participant.steps_done >= len(steps) or steps[participant.steps_done] != dataset.pk:
            return  # not their current step (a page of an earlier one, done already)
        participant.steps_done += 1
        if participant.steps_done == len(steps) and now < participant.deadline:
            participant.completed_at = now
        participant.save(update_fields=["steps_done", "completed_at"])


def training_finished(training_round: TrainingRound, passed: bool, now: datetime | None = None) -> None:
    """A study participant who failed a dataset's training round is screened out."""
    if passed:
        return
    StudyParticipant.objects.filter(user_id=training_round.annotator_id, completed_at__isnull=True,
                                    screened_out_at__isnull=True).update(screened_out_at=now or timezone.now())


def return_link(study: Study, code: str) -> str:
    """The panel's link with the code in it."""
    return study.return_link.replace("{code}", quote(code, safe=""))
