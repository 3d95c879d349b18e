"""The API's own answers and the "My answers" page read one selector
(annotation.annotate.answers.own_answers): the same answers, each in its own order."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.datasets.assigning import assign, release_items
from annotation.models import Annotation
from tests.annotate.conftest import wsd_records
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def released():
    """Ala's answers: two submitted, and a draft left on an item released to Ola."""
    ala, ola = make_user("annotator", "ala"), make_user("annotator", "ola")
    dataset = make_dataset("wsd", wsd_records(6), name="wsd-set")
    assign(dataset, [ala, ola], 1)
    mine = list(dataset.assignments.filter(annotator=ala).order_by("position"))
    assert len(mine) >= 3
    kept = [
        Annotation.objects.create(item=assignment.item, annotator=ala, answer={"answer": "A"}, status="submitted")
        for assignment in mine[:2]
    ]
    draft = Annotation.objects.create(item=mine[2].item, annotator=ala, answer={"answer": "B"}, status="draft")
    release_items(dataset, ala, [ola])
    assert not dataset.assignments.filter(annotator=ala, item=draft.item).exists()
    # Saved again later: "My answers" shows it first, the API keeps it in its place (by id).
    kept[0].answer = {"answer": "B"}
    kept[0].save()
    client = APIClient()
    client.force_authenticate(ala)
    return {"ala": ala, "dataset": dataset, "kept": kept, "draft": draft, "client": client}


def test_the_api_lists_the_answers_to_items_still_assigned_by_id(released):
    body = released["client"].get(reverse("api_annotations")).json()
    assert [entry["id"] for entry in body["results"]] == [answer.pk for answer in released["kept"]]
    assert {entry["dataset"] for entry in body["results"]} == {released["dataset"].pk}
    filtered = released["client"].get(reverse("api_annotations"), {"dataset": released["dataset"].pk}).json()
    assert [entry["id"] for entry in filtered["results"]] == [answer.pk for answer in released["kept"]]


def test_a_draft_on_an_item_released_to_others_is_not_served(released):
    url = reverse("api_annotation", args=[released["draft"].pk])
    assert released["client"].get(url).status_code == 404
    put = released["client"].put(url, {"answer": {"answer": "A"}, "status": "draft", "version": 1}, format="json")
    assert put.status_code == 404


def test_my_answers_lists_the_same_answers_most_recently_saved_first(released, client):
    client.force_login(released["ala"])
    page = client.get(reverse("my_answers")).content.decode()
    rows = page.split("<tr>")[2:]
    assert len(rows) == 2
    first, second = released["kept"]
    assert first.item.external_id in rows[0] and second.item.external_id in rows[1]
