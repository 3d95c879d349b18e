"""Routing on the annotator's pages and in the API: the start page asks for the next item, save &
next and Skip go on to the next item routing gives, the waiting page when nothing is available
now, the end page when nothing remains, the reservation renewed by the page's script."""

import json
import threading
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.annotate import routing
from annotation.annotate import services as annotating
from annotation.annotate.queue import item_page
from annotation.datasets.assigning import assign
from annotation.datasets.routing import set_routing
from annotation.models import Annotation, Assignment, RoutedItem
from tests.annotate.test_routing import ANSWER, records
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def routed():
    dataset = make_dataset("commas", records(2))
    dataset = set_routing(dataset, routing=True, answers_per_item=1)
    users = [make_user(), make_user()]
    assign(dataset, users, 1)
    return dataset, users


def test_get_shows_the_page_that_asks_and_writes_nothing(client, routed):
    dataset, (user, _) = routed
    client.force_login(user)
    response = client.get(reverse("annotate_continue", args=[dataset.pk]))
    assert response.status_code == 200
    assert 'hx-trigger="load, every 15s"' in response.content.decode()
    assert not Assignment.objects.exists()


def test_post_reserves_the_next_item_and_get_then_goes_back_to_it(client, routed):
    dataset, (user, _) = routed
    client.force_login(user)
    response = client.post(reverse("annotate_continue", args=[dataset.pk]))
    assert response.status_code == 302 and response.url == reverse("annotate_item", args=[dataset.pk, 1])
    assert client.get(reverse("annotate_continue", args=[dataset.pk])).url == response.url
    page = client.get(response.url).content.decode()
    assert 'id="reservation"' in page and "Item 1 of 2 in your order" in page


def test_save_and_next_goes_to_the_next_routed_item_then_to_the_end(client, routed):
    dataset, (user, _) = routed
    client.force_login(user)
    client.post(reverse("annotate_continue", args=[dataset.pk]))
    for position, following in ((1, reverse("annotate_item", args=[dataset.pk, 2])),
                                (2, reverse("queue_done", args=[dataset.pk]))):
        response = client.post(reverse("annotate_item", args=[dataset.pk, position]),
                                {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"})
        assert response.status_code == 302 and response.url == following
    assert RoutedItem.objects.filter(dataset=dataset, submitted=1, reserved=0).count() == 2


def answers_committed(user) -> int:
    """The user's answers as another connection sees them: committed ones only."""
    counted = []
    reader = threading.Thread(target=lambda: (counted.append(Annotation.objects.filter(annotator=user).count()),
                                              connections.close_all()))
    reader.start()
    reader.join()
    return counted[0]


@pytest.mark.django_db(transaction=True)
def test_save_and_next_stores_counts_and_reserves_the_next_item_in_one_statement(client, routed):
    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL (one statement; another connection reading)")
    dataset, (user, _) = routed
    routing.next_item(user, dataset.pk)
    page = item_page(user, dataset.pk, 1)
    with CaptureQueriesContext(connection) as queries:
        outcome, served = annotating.submit_and_reserve_next(user, page=page, answer=ANSWER, based_on_version=0)
    assert len(queries) == 1 and "SAVEPOINT" not in queries[0]["sql"]
    assert outcome.annotation.pk == Annotation.objects.get(annotator=user, status="submitted").pk
    assert served.state == routing.ITEM and served.position == 2
    reserved = Assignment.objects.get(annotator=user, reserved_until__isnull=False)
    assert (reserved.position, reserved.reserved_until) == (2, served.reserved_until)
    counters = dict(RoutedItem.objects.filter(dataset=dataset).values_list("item__ordinal", "submitted"))
    assert sorted(counters.values()) == [0, 1]
    assert sorted(RoutedItem.objects.filter(dataset=dataset).values_list("reserved", flat=True)) == [0, 1]


def test_a_late_answer_is_counted_as_late_and_the_next_item_chosen_after_it(routed):
    """The one statement chooses only after an answer to an item still reserved: a late one
    is stored and counted by it, and the next item then chosen by next_item."""
    dataset, (user, _) = routed
    routing.next_item(user, dataset.pk)
    Assignment.objects.filter(annotator=user).update(reserved_until=timezone.now() - timedelta(minutes=1))
    page = item_page(user, dataset.pk, 1)
    outcome, served = annotating.submit_and_reserve_next(user, page=page, answer=ANSWER, based_on_version=0)
    assert outcome.annotation.status == "submitted" and served.position == 2
    assert RoutedItem.objects.get(item_id=page.item_id).late == 1
    assert Assignment.objects.filter(annotator=user, reserved_until__isnull=False).get().position == 2


def committed_submits(user) -> int:
    """The user's submitted answers as another connection sees them: committed ones only."""
    counted = []

    def count():
        counted.append(Annotation.objects.filter(annotator=user, status="submitted").count())
        connections.close_all()

    reader = threading.Thread(target=count)
    reader.start()
    reader.join()
    return counted[0]


def submit_after_a_draft(client, dataset, position: int):
    """Save & next of an item with a draft (not the first save: the transaction's way)."""
    url = reverse("annotate_item", args=[dataset.pk, position])
    client.post(url, {"intent": "draft", "answer": json.dumps(ANSWER), "version": "0"})
    return client.post(url, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "1"})


@pytest.mark.django_db(transaction=True)
def test_save_and_next_after_a_draft_commits_the_answer_with_the_choice(client, routed, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL (one statement; another connection reading)")
    dataset, (user, _) = routed
    client.force_login(user)
    client.post(reverse("annotate_continue", args=[dataset.pk]))
    seen_at_the_choice = []
    choose = routing.next_item

    def next_item(annotator, dataset_id, now=None):
        seen_at_the_choice.append(committed_submits(user))
        return choose(annotator, dataset_id, now)

    monkeypatch.setattr(routing, "next_item", next_item)
    response = submit_after_a_draft(client, dataset, 1)
    assert response.url == reverse("annotate_item", args=[dataset.pk, 2])
    assert seen_at_the_choice == [0] and committed_submits(user) == 1


@pytest.mark.django_db(transaction=True)
def test_a_choice_that_fails_takes_the_answer_back_with_it(client, routed, monkeypatch):
    dataset, (user, _) = routed
    client.force_login(user)
    client.post(reverse("annotate_continue", args=[dataset.pk]))

    def next_item(annotator, dataset_id, now=None):
        raise DatabaseError("the server went away")

    monkeypatch.setattr(routing, "next_item", next_item)
    with pytest.raises(DatabaseError):
        submit_after_a_draft(client, dataset, 1)
    assert not Annotation.objects.filter(status="submitted").exists()
    assert not RoutedItem.objects.filter(dataset=dataset, submitted__gt=0).exists()


def test_nothing_available_now_is_a_page_that_checks_again_not_the_end(client, routed):
    dataset, (first, second) = routed
    routing.next_item(first, dataset.pk)  # the first holds item 1
    client.force_login(second)
    client.post(reverse("annotate_continue", args=[dataset.pk]))  # the second holds item 2
    response = client.post(reverse("annotate_item", args=[dataset.pk, 1]),
                           {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"})
    assert response.url == reverse("annotate_continue", args=[dataset.pk])
    waiting = client.post(reverse("annotate_continue", args=[dataset.pk]), HTTP_HX_REQUEST="true")
    body = waiting.content.decode()
    assert waiting.status_code == 200 and 'id="nothing-now"' in body and "every 15s" in body
    # The first's item expires and is released: the waiting page's next check gets it.
    Assignment.objects.filter(annotator=first).update(reserved_until="2000-01-01T00:00Z")
    found = client.post(reverse("annotate_continue", args=[dataset.pk]), HTTP_HX_REQUEST="true")
    assert found["HX-Redirect"] == reverse("annotate_item", args=[dataset.pk, 2])


def test_skip_on_the_page_releases_the_item(client, routed):
    dataset, (user, _) = routed
    client.force_login(user)
    client.post(reverse("annotate_continue", args=[dataset.pk]))
    response = client.post(reverse("annotate_item", args=[dataset.pk, 1]), {"intent": "skip"})
    assert response.url == reverse("annotate_item", args=[dataset.pk, 2])
    assert Assignment.objects.get(annotator=user, position=1).reserved_until is None


def test_the_pages_script_renews_the_reservation(client, routed):
    dataset, (user, _) = routed
    client.force_login(user)
    client.post(reverse("annotate_continue", args=[dataset.pk]))
    Assignment.objects.filter(annotator=user).update(reserved_until="2000-01-01T00:00Z")
    response = client.post(reverse("annotate_item", args=[dataset.pk, 1]), {"intent": "renew"})
    assert response.status_code == 204
    assert Assignment.objects.get(annotator=user).reserved_until.year > 2000


def test_the_api_gives_the_next_item_and_refuses_fixed_queues(client, routed):
    dataset, (user, _) = routed
    client.force_login(user)
    url = reverse("api_next_item", args=[dataset.pk])
    first = client.post(url).json()
    assert first["state"] == "item" and first["item"]["position"] == 1 and first["reserved_until"]
    saved = client.post("/api/annotations/", {"item": first["item"]["id"], "answer": ANSWER, "status": "submitted",
                                              "version": 0}, content_type="application/json")
    assert saved.status_code == 201
    assert client.post(url).json()["item"]["position"] == 2
    fixed = make_dataset("commas", records(1))
    assign(fixed, [user], 1)
    refused = client.post(reverse("api_next_item", args=[fixed.pk]))
    assert refused.status_code == 422 and refused.json()["codes"] == ["not_routed"]
    assert Annotation.objects.filter(annotator=user).count() == 1
