"""The organizer's switch between fixed queues and routing: the dataset page, the command and
the API say and refuse alike; the sample's state; fixed queues stay the default and as before."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.annotate import routing
from annotation.annotate import services as annotating
from annotation.annotate.queue import item_page
from annotation.core.errors import Refused
from annotation.datasets.assigning import assign
from annotation.datasets.routing import set_routing
from annotation.models import Assignment, Dataset, RoutedItem, RoutingOrder
from tests.annotate.test_routing import ANSWER, records
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


def test_fixed_queues_are_the_default_and_assign_as_before():
    dataset = make_dataset("commas", records(6))
    users = [make_user(), make_user()]
    assert not dataset.routing
    assert assign(dataset, users, 2).total_added == 12
    assert not RoutedItem.objects.exists() and not RoutingOrder.objects.exists()


def test_turning_routing_on_takes_the_assigned_annotators_in_and_their_fixed_queues_back():
    dataset = make_dataset("commas", records(6))
    users = [make_user(), make_user()]
    assign(dataset, users, 1)
    set_routing(dataset, routing=True, answers_per_item=2)
    assert not Assignment.objects.filter(dataset=dataset).exists()
    assert RoutedItem.objects.filter(dataset=dataset).count() == 6
    assert RoutingOrder.objects.filter(dataset=dataset).count() == 12
    orders = [list(RoutingOrder.objects.filter(annotator=user).order_by("rank").values_list("item_id", flat=True))
              for user in users]
    assert orders[0] != orders[1] and sorted(orders[0]) == sorted(orders[1])


def test_the_mode_k_and_the_pilot_are_refused_after_the_first_answer_and_change_nothing():
    dataset = set_routing(make_dataset("commas", records(4)), routing=True, answers_per_item=2)
    user = make_user()
    assign(dataset, [user], 2)
    served = routing.next_item(user, dataset.pk)
    page = item_page(user, dataset.pk, served.position)
    annotating.save_answer(page=page, answer=ANSWER, submit=True, based_on_version=0)
    for change in ({"routing": False}, {"answers_per_item": 3}, {"pilot_size": 1}):
        with pytest.raises(Refused) as refused:
            set_routing(dataset, **change)
        assert refused.value.problems[0].code == "routing_after_answers"
    dataset = set_routing(dataset, quota=3, reservation_minutes=5)
    assert (dataset.answers_per_item, dataset.quota, dataset.reservation_minutes) == (2, 3, 5)


def test_the_command_sets_and_prints_the_routing_and_refuses_with_exit_1():
    dataset = make_dataset("commas", records(5), name="routed-commas")
    out = StringIO()
    call_command("routing", "routed-commas", "--on", "--k", "3", "--pilot", "2", "--quota", "4", stdout=out)
    assert "routing, k = 3" in out.getvalue() and "items with 0 answers: 5" in out.getvalue()
    out = StringIO()
    call_command("routing", "routed-commas", "--json", stdout=out)
    described = json.loads(out.getvalue())
    assert described["state"]["items_by_answers"] == {"0": 5, "1": 0, "2": 0, "3": 0}
    assert (described["pilot_size"], described["quota"], described["answers_per_item"]) == (2, 4, 3)
    with pytest.raises(CommandError):
        call_command("routing", "routed-commas", "--pilot", "9", stderr=StringIO())
    assert Dataset.objects.get(pk=dataset.pk).pilot_size == 2


def test_the_api_reads_and_sets_the_routing(client):
    dataset = make_dataset("commas", records(3))
    client.force_login(make_user("organizer"))
    url = reverse("api_dataset_routing", args=[dataset.pk])
    assert client.get(url).json()["state"] is None
    answer = client.put(url, {"routing": True, "answers_per_item": 2, "quota": 2}, content_type="application/json")
    assert answer.status_code == 200 and answer.json()["state"]["answers_per_item"] == 2
    refused = client.put(url, {"pilot_size": 7}, content_type="application/json")
    assert refused.status_code == 422 and refused.json()["codes"] == ["pilot_too_large"]


def test_the_dataset_page_switches_and_shows_the_state(client):
    dataset = make_dataset("commas", records(3))
    user = make_user()
    client.force_login(make_user("organizer"))
    url = reverse("organizer_dataset", args=[dataset.pk])
    response = client.post(url, {"action": "routing", "mode": "routing", "answers_per_item": "2",
                                 "reservation_minutes": "20", "pilot_size": "0"})
    assert response.status_code == 302
    assign(Dataset.objects.get(pk=dataset.pk), [user], 2)
    routing.next_item(user, dataset.pk)
    page = client.get(url).content.decode()
    assert 'id="routing-state"' in page and 'id="routing-reserved">1<' in page
    client.post(url, {"action": "routing", "mode": "fixed", "reservation_minutes": "20", "pilot_size": "0"})
    assert not Dataset.objects.get(pk=dataset.pk).routing
