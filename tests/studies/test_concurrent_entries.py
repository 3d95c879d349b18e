"""Participants entering a panel study at once, through the real views, each with a browser
(a test client) of their own, against PostgreSQL: 200 entries from at most 20 threads take no
item above k nor an item twice, no participant above their quota, and everyone admitted ends
with the completion code; the same panel id entering from two browsers at once is one
participant."""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection, connections
from django.db.models import Count
from django.test import Client
from django.urls import reverse

from annotation.core.roles import ANNOTATOR
from annotation.models import Annotation, Assignment, RoutedAnnotator, Study, StudyParticipant, StudyRefusal
from tests.annotate.test_routing import counters_agree, loads
from tests.studies.panel import ANSWER, entry_url, make_study, panel_id, routed_dataset

pytestmark = pytest.mark.django_db(transaction=True)

ENTRIES, THREADS = 200, 20
ITEMS, K, QUOTA = 150, 2, 2  # 300 places for 200 quotas of 2: the study fills and closes itself
# Requests a participant may need (entry, continue, the item pages, waits for a free item).
MOST_REQUESTS = 200


@pytest.fixture(autouse=True)
def _postgresql_and_the_annotator_role():
    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL (row locks)")
    # A transactional test's database is flushed between tests, the migration's groups with it.
    Group.objects.get_or_create(name=ANNOTATOR)


def work_through(client: Client, study: Study) -> str:
    """Answer what the study gives through the pages until it shows its end page; that page."""
    for _ in range(MOST_REQUESTS):
        response = client.get(reverse("study_continue", args=[study.token]))
        if response.status_code == 200:
            return response.content.decode()
        dataset_id = int(response.url.strip("/").split("/")[1])
        served = client.post(reverse("annotate_continue", args=[dataset_id]))
        if served.status_code == 200:  # nothing free now: every item left is held by others
            time.sleep(0.05)
            continue
        if served.url.endswith("/done/"):
            continue
        saved = client.post(served.url, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"})
        assert saved.status_code in (200, 302), saved.status_code
    raise AssertionError("the study did not end")


def in_threads(work, arguments, threads: int) -> list:
    """``work`` of each argument in a pool of ``threads`` threads (each closing its database
    connection when done); the results in the arguments' order."""
    def run(argument):
        try:
            return work(argument)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(run, arguments))


def test_two_hundred_entries_from_twenty_threads_keep_every_rule_of_the_routing():
    dataset = routed_dataset(ITEMS, K)
    study = make_study((dataset, QUOTA))

    def participant(number: int) -> tuple[int, str]:
        client = Client()
        url = entry_url(study, panel_id(number), session=f"s{number}")
        assert client.get(url).status_code in (200, 422)  # 422: the study closed meanwhile
        entered = client.post(url, {"intent": "consent"})
        if entered.status_code != 302:
            return entered.status_code, entered.content.decode()
        return entered.status_code, work_through(client, study)

    outcomes = in_threads(participant, range(1, ENTRIES + 1), THREADS)

    admitted = [page for status, page in outcomes if status == 302]
    refused = [page for status, page in outcomes if status != 302]
    assert {status for status, _ in outcomes} <= {302, 422}
    participants = StudyParticipant.objects.filter(study=study)
    assert participants.count() == len(admitted) >= (ITEMS * K) // QUOTA - THREADS
    assert User.objects.count() == len(admitted)  # a refused entry leaves no account
    study.refresh_from_db()
    if refused:
        assert study.state == Study.State.CLOSED and study.closed_by_itself
    # Every participant who entered finished, with the completion code and its return link.
    assert all("C0MPL3T" in page and "cc=C0MPL3T" in page for page in admitted)
    assert participants.filter(completed_at__isnull=False).count() == len(admitted)

    per_item = loads(dataset)
    assert max(per_item.values()) <= K
    assert counters_agree(dataset)
    submitted = Annotation.objects.filter(item__dataset=dataset, status="submitted")
    assert not submitted.values("item", "annotator").annotate(n=Count("pk")).filter(n__gt=1).exists()
    assert not (Assignment.objects.filter(dataset=dataset).values("item", "annotator").annotate(n=Count("pk"))
                .filter(n__gt=1).exists())
    answered = dict(submitted.values_list("annotator").annotate(n=Count("pk")).order_by())
    assert max(answered.values()) <= QUOTA
    assert all(member.served <= QUOTA for member in RoutedAnnotator.objects.filter(dataset=dataset))
    # The places the study gave are the answers: none lost, none past the sample.
    assert sum(answered.values()) == min(ITEMS * K, len(admitted) * QUOTA)


def entering_at_once(study: Study, participant: str, sessions: list[str]) -> list[int]:
    """The statuses of the consents to ``participant``'s entry sent at once from a browser per session."""
    start = threading.Barrier(len(sessions))

    def consent(session: str) -> int:
        client = Client()
        start.wait()
        return client.post(entry_url(study, participant, session=session), {"intent": "consent"}).status_code

    return in_threads(consent, sessions, threads=len(sessions))


def test_the_same_id_entering_from_two_browsers_at_once_is_one_participant():
    study = make_study((routed_dataset(20, 2), 2))
    for number in range(1, 6):  # a few ids: the two requests meet at a different point each time
        statuses = entering_at_once(study, panel_id(number), ["first", "second"])
        assert sorted(statuses) == [302, 422], statuses
        assert StudyParticipant.objects.filter(study=study, panel_id=panel_id(number)).count() == 1
        assert StudyRefusal.objects.filter(study=study, panel_id=panel_id(number)).count() <= 1
    assert User.objects.count() == 5
    assert RoutedAnnotator.objects.count() == 5
