"""The entry link: consent given or declined, a wrong study or malformed id refused, an id bound
to the session it first entered in, and the way through the study to its code."""

import json
import threading
from datetime import timedelta

import pytest
from axes.models import AccessLog
from django.contrib.auth.models import User
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.annotate import routing
from annotation.datasets.organizing import withdraw_item
from annotation.models import (
    Annotation,
    Assignment,
    Campaign,
    Item,
    Pseudonym,
    RoutedAnnotator,
    RoutedItem,
    Study,
    StudyParticipant,
    StudyRefusal,
)
from annotation.studies.entering import steps_with_places
from tests.factories import DEFAULT_PASSWORD, make_user
from tests.studies.panel import ANSWER, entry_url, make_study, panel_id, routed_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    return make_study((routed_dataset(6, 2), 2))


def consent(client: Client, study: Study, participant: str, session: str = "s1"):
    return client.post(entry_url(study, participant, session), {"intent": "consent"})


def test_the_entry_page_shows_the_consent_and_writes_nothing(client, study):
    response = client.get(entry_url(study, panel_id(1)))
    assert response.status_code == 200
    assert "Zgadzam się na udział." in response.content.decode()
    assert not User.objects.exists() and not StudyParticipant.objects.exists()


def test_consent_makes_a_participant_account_without_password_or_email(client, study):
    response = consent(client, study, panel_id(1))
    # Straight to the first item routing reserved for them.
    dataset = study.steps.get().dataset
    assert response.status_code == 302 and response.url == reverse("annotate_item", args=[dataset.pk, 1])
    participant = StudyParticipant.objects.get()
    assert Assignment.objects.get(annotator=participant.user, position=1).reserved_until is not None
    assert participant.panel_id == panel_id(1) and participant.panel_session == "s1"
    user = participant.user
    assert not user.has_usable_password() and user.email == "" and panel_id(1) not in user.username
    assert user.groups.filter(name="annotator").exists()
    member = RoutedAnnotator.objects.get(annotator=user)
    assert member.quota == 2 and member.deadline == participant.deadline
    assert participant.deadline - participant.entered_at == timedelta(minutes=study.deadline_minutes)
    # No password login: nothing for the login lock-out to reset or record.
    assert not AccessLog.objects.exists()


def participants_committed() -> int:
    """The participants another connection sees: committed ones only."""
    counted = []

    def count():
        counted.append(StudyParticipant.objects.count())
        connections.close_all()

    reader = threading.Thread(target=count)
    reader.start()
    reader.join()
    return counted[0]


@pytest.mark.django_db(transaction=True)
def test_consent_commits_the_entry_the_login_and_the_first_item_together(client, study, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL (another connection reading)")
    seen_at_the_choice = []
    choose = routing.next_item

    def next_item(annotator, dataset_id, now=None):
        seen_at_the_choice.append((participants_committed(), annotator.last_login is not None))
        return choose(annotator, dataset_id, now)

    monkeypatch.setattr(routing, "next_item", next_item)
    response = consent(client, study, panel_id(1))
    reserved = Assignment.objects.get(reserved_until__isnull=False)
    assert response.url == reverse("annotate_item", args=[reserved.dataset_id, reserved.position])
    assert seen_at_the_choice == [(0, True)] and participants_committed() == 1


def test_a_password_login_is_still_recorded_by_the_lock_out(client):
    user = make_user("annotator")
    assert client.post(reverse("login"), {"username": user.username, "password": DEFAULT_PASSWORD}).status_code == 302
    assert AccessLog.objects.filter(username=user.username).exists()


def test_a_campaign_study_names_the_participant_by_the_campaigns_pseudonym(client):
    dataset = routed_dataset(4, 1)
    campaign = Campaign.objects.create(name="test-A")
    campaign.datasets.add(dataset)
    study = make_study((dataset, 1), campaign=campaign)
    consent(client, study, panel_id(1))
    consent(Client(), study, panel_id(2))
    assert sorted(Pseudonym.objects.filter(campaign=campaign).values_list("number", flat=True)) == [1, 2]


def test_declined_consent_keeps_nothing_but_the_count_and_gives_its_code(client, study):
    response = client.post(entry_url(study, panel_id(1)), {"intent": "decline"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "N0C0NS" in page and "https://app.prolific.com/submissions/complete?cc=N0C0NS" in page
    assert not User.objects.exists() and not StudyParticipant.objects.exists() and not StudyRefusal.objects.exists()
    study.refresh_from_db()
    assert study.declined == 1


@pytest.mark.parametrize("participant, study_id", [
    (panel_id(1), "another-study"),
    ("not-a-prolific-id", None),
    ("", None),
    (panel_id(1)[:-1], None),
])
def test_a_wrong_study_id_or_a_malformed_participant_id_is_refused(client, study, participant, study_id):
    url = entry_url(study, participant, study_id=study_id or "5f0c4d7e8a9b1c2d3e4f5a6b")
    for response in (client.get(url), client.post(url, {"intent": "consent"})):
        assert response.status_code == 422
    assert not User.objects.exists() and not StudyParticipant.objects.exists()


def test_the_id_format_and_parameter_names_are_the_studys(client):
    study = make_study((routed_dataset(4, 1), 1), participant_parameter="worker", participant_id_pattern="[A-Z0-9]{10,14}",
                       panel_study_id="")
    url = reverse("study_entry", args=[study.token]) + "?worker=A1B2C3D4E5F6"
    assert client.post(url, {"intent": "consent"}).status_code == 302
    assert StudyParticipant.objects.get().panel_id == "A1B2C3D4E5F6"
    assert client.get(reverse("study_entry", args=[study.token]) + f"?worker={panel_id(1)}").status_code == 422


def test_a_reentry_is_admitted_in_the_same_session_or_with_the_same_panel_session(client, study):
    consent(client, study, panel_id(1), session="s1")
    # The same browser: straight back in.
    assert client.get(entry_url(study, panel_id(1))).url == reverse("study_continue", args=[study.token])
    # Another browser with the same panel session: admitted, logged in as the same participant.
    other = Client()
    assert other.post(entry_url(study, panel_id(1), session="s1"), {"intent": "resume"}).status_code == 302
    assert other.get(reverse("study_continue", args=[study.token])).status_code == 302
    assert StudyParticipant.objects.count() == 1 and not StudyRefusal.objects.exists()


def test_the_same_id_from_another_browser_and_panel_session_cannot_reach_the_participants_items(client, study):
    consent(client, study, panel_id(1), session="s1")
    client.post(reverse("annotate_continue", args=[study.steps.get().dataset_id]))
    owner = StudyParticipant.objects.get().user
    held = Assignment.objects.get(annotator=owner)
    intruder = Client()
    for intent in ("resume", "consent"):
        response = intruder.post(entry_url(study, panel_id(1), session="s2"), {"intent": intent})
        assert response.status_code == 422
    assert intruder.get(reverse("annotate_item", args=[held.dataset_id, held.position])).status_code == 302  # to login
    assert StudyRefusal.objects.filter(panel_id=panel_id(1), panel_session="s2").count() == 2
    assert StudyParticipant.objects.count() == 1


def test_another_panel_id_cannot_reach_another_participants_items(client, study):
    first = consent(client, study, panel_id(1)).url
    client.post(first, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"})
    owner = StudyParticipant.objects.get().user
    second = Assignment.objects.get(annotator=owner, position=2)
    other = Client()
    consent(other, study, panel_id(2), session="s2")
    # Positions are each participant's own: the other has only their first.
    assert other.get(reverse("annotate_item", args=[second.dataset_id, 2])).status_code == 404
    assert not Annotation.objects.filter(item=second.item).exclude(annotator=owner).exists()


def test_a_test_id_walks_the_study_without_being_counted(client):
    study = make_study((routed_dataset(4, 1), 1), test_ids="PREVIEW\n")
    for browser in (client, Client()):
        assert browser.post(entry_url(study, "PREVIEW"), {"intent": "consent"}).status_code == 302
    assert client.post(entry_url(study, "PREVIEW"), {"intent": "decline"}).status_code == 200
    assert list(StudyParticipant.objects.values_list("test", "panel_id")) == [(True, None), (True, None)]
    study.refresh_from_db()
    assert study.declined == 0


def test_a_test_entrys_answer_adds_nothing_to_the_items_load(client):
    study = make_study((routed_dataset(2, 1), 1), test_ids="PREVIEW\n")  # two places, k = 1
    first = consent(client, study, "PREVIEW").url
    assert client.post(first, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"}).status_code == 302
    answered = Annotation.objects.get(status=Annotation.Status.SUBMITTED).item
    counter = RoutedItem.objects.get(item=answered)
    # Its reservation given back, its answer stored and counted nowhere: the item still needs its one answer.
    assert (counter.submitted, counter.reserved, counter.late, counter.complete) == (0, 0, 0, False)
    served = set()
    for number in (1, 2):
        participant = Client()
        page = consent(participant, study, panel_id(number)).url
        assert participant.post(page, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"}).status_code == 302
        served |= set(Annotation.objects.filter(annotator__study_participant__panel_id=panel_id(number))
                      .values_list("item_id", flat=True))
    assert answered.pk in served and len(served) == 2
    assert list(RoutedItem.objects.order_by("item_id").values_list("submitted", "complete")) == [(1, True), (1, True)]
    assert consent(Client(), study, panel_id(3)).status_code == 422  # full: the study closed by itself


def test_the_places_left_are_never_below_zero(client):
    study = make_study((routed_dataset(4, 1), 3))
    consent(client, study, panel_id(1))
    held = Assignment.objects.get().item_id
    # Two items withdrawn under the participant at work: one place free, two still theirs to take.
    organizer = make_user("organizer")
    for item in Item.objects.exclude(pk=held).order_by("pk")[:2]:
        withdraw_item(item, organizer, "a wrong key")
    assert [step.places_left for step in steps_with_places(study)] == [0]
    assert consent(Client(), study, panel_id(2)).status_code == 422


def test_a_paused_or_closed_study_takes_no_one(client, study):
    for state in (Study.State.PAUSED, Study.State.CLOSED):
        Study.objects.filter(pk=study.pk).update(state=state)
        assert client.get(entry_url(study, panel_id(1))).status_code == 422
        assert client.post(entry_url(study, panel_id(1)), {"intent": "consent"}).status_code == 422
    assert not StudyParticipant.objects.exists()


def test_the_study_closes_by_itself_when_the_items_left_cannot_fill_one_more_quota(client):
    study = make_study((routed_dataset(3, 1), 2))  # three places: one quota of two, not two
    assert consent(client, study, panel_id(1)).status_code == 302
    assert consent(Client(), study, panel_id(2)).status_code == 422
    study.refresh_from_db()
    assert study.state == Study.State.CLOSED and study.closed_by_itself


def answer_all(client: Client, study: Study) -> None:
    """Answer the participant's items through the pages until the study sends them away."""
    for _ in range(50):
        response = client.get(reverse("study_continue", args=[study.token]))
        if response.status_code == 200:
            return
        dataset_id = int(response.url.strip("/").split("/")[1])
        served = client.post(reverse("annotate_continue", args=[dataset_id]))
        if served.url.endswith("/done/"):
            continue
        client.post(served.url, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"})
    raise AssertionError("the study did not end")


def test_the_participant_goes_through_the_datasets_in_order_to_the_completion_code(client):
    first, second = routed_dataset(6, 2), routed_dataset(6, 2)
    study = make_study((first, 2), (second, 3))
    consent(client, study, panel_id(1))
    answer_all(client, study)
    participant = StudyParticipant.objects.get()
    user = participant.user
    counts = [Annotation.objects.filter(annotator=user, item__dataset=d, status="submitted").count() for d in (first, second)]
    assert counts == [2, 3]
    assert participant.completed_at is not None and participant.steps_done == 2
    page = client.get(reverse("study_continue", args=[study.token])).content.decode()
    assert "C0MPL3T" in page and 'href="https://app.prolific.com/submissions/complete?cc=C0MPL3T"' in page
    assert client.get(reverse("home")).url == reverse("study_continue", args=[study.token])


def test_a_sample_that_runs_out_before_the_quota_still_ends_with_the_completion_code(client):
    study = make_study((routed_dataset(3, 1), 3))
    consent(client, study, panel_id(1))
    other = Client()
    consent(other, study, panel_id(2))  # refused: the study is full now
    answer_all(client, study)
    assert StudyParticipant.objects.get().completed_at is not None


def test_past_the_deadline_the_reservations_go_back_and_the_answers_stay(client, study):
    consent(client, study, panel_id(1))
    dataset = study.steps.get().dataset
    first = client.post(reverse("annotate_continue", args=[dataset.pk])).url
    client.post(first, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"})
    participant = StudyParticipant.objects.get()
    held = Assignment.objects.get(annotator=participant.user, reserved_until__isnull=False)
    assert held.reserved_until <= participant.deadline
    StudyParticipant.objects.filter(pk=participant.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    RoutedAnnotator.objects.filter(annotator=participant.user).update(deadline=timezone.now() - timedelta(seconds=1))
    Assignment.objects.filter(pk=held.pk).update(reserved_until=timezone.now() - timedelta(seconds=1))
    page = client.get(reverse("study_continue", args=[study.token]))
    assert page.status_code == 200 and "The time for the study is over" in page.content.decode()
    # Another participant's next choice releases the lapsed reservation.
    other = Client()
    consent(other, study, panel_id(2))
    other.post(reverse("annotate_continue", args=[dataset.pk]))
    held.refresh_from_db()
    assert held.reserved_until is None and held.reservation_lapsed
    assert Annotation.objects.filter(annotator=participant.user, status="submitted").count() == 1
    # Nothing more for them, even by the pages.
    assert client.post(reverse("annotate_continue", args=[dataset.pk])).url.endswith("/done/")
