"""REST API: what an annotator sees, and saves through the same rules as the item page."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.annotate.serializers import AnnotationSerializer
from annotation.datasets.organizing import withdraw_item
from annotation.models import Annotation, AnnotationRevision, Assignment
from tests.annotate.conftest import GOLD_MARK, wsd_records
from tests.factories import assign_in_order, make_dataset, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    annotator = make_user("annotator")
    records = wsd_records(3)
    mine = make_dataset("wsd", records, name="mine")
    # A second dataset with gold, of which the annotator has only two items, in reverse order.
    partly_records = [dict(record, id=f"p-{record['id']}") for record in records]
    gold = [{"id": record["id"], "answer": "A", "note": GOLD_MARK} for record in partly_records]
    partly = make_dataset("wsd", partly_records, gold=gold, name="partly")
    items = list(partly.items.order_by("ordinal"))
    Assignment.objects.create(dataset=partly, item=items[2], annotator=annotator, position=1)
    Assignment.objects.create(dataset=partly, item=items[0], annotator=annotator, position=2)
    assign_in_order(mine, annotator)
    other = make_dataset("wsd", wsd_records(2), name="theirs")
    assign_in_order(other, make_user("annotator"))
    client = APIClient()
    client.force_authenticate(annotator)
    return {"annotator": annotator, "mine": mine, "partly": partly, "other": other, "client": client, "items": items}


def first_item(dataset):
    return dataset.items.order_by("ordinal").first()


def post(client, item, answer, status="submitted", version=0, **extra):
    return client.post(
        reverse("api_annotations"),
        {"item": item.pk, "answer": answer, "status": status, "version": version, **extra},
        format="json",
    )


def test_datasets_lists_only_the_annotators_own_with_progress(setup):
    post(setup["client"], first_item(setup["mine"]), {"answer": "B"})
    body = setup["client"].get(reverse("api_datasets")).json()
    assert [(entry["name"], entry["progress"]) for entry in body] == [
        ("mine", {"submitted": 1, "assigned": 3}),
        ("partly", {"submitted": 0, "assigned": 2}),
    ]


def test_organizers_list_every_dataset_but_the_archived_ones(setup):
    client = APIClient()
    client.force_authenticate(make_user("organizer"))
    assert [entry["name"] for entry in client.get(reverse("api_datasets")).json()] == ["mine", "partly", "theirs"]
    setup["partly"].archived_at = timezone.now()
    setup["partly"].save(update_fields=["archived_at"])
    assert [entry["name"] for entry in client.get(reverse("api_datasets")).json()] == ["mine", "theirs"]


def test_items_are_only_the_assigned_ones_in_the_annotators_order_without_gold(setup):
    response = setup["client"].get(reverse("api_dataset_items", args=[setup["partly"].pk]))
    assert response.status_code == 200
    body = response.json()
    assert [(entry["position"], entry["external_id"]) for entry in body["results"]] == [
        (1, setup["items"][2].external_id),
        (2, setup["items"][0].external_id),
    ]
    assert body["results"][0]["payload"] == setup["items"][2].payload
    assert GOLD_MARK not in response.content.decode()
    assert setup["client"].get(reverse("api_dataset_items", args=[setup["other"].pk])).status_code == 404


def test_items_are_paginated(setup):
    body = setup["client"].get(reverse("api_dataset_items", args=[setup["mine"].pk]) + "?page_size=2").json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]


def test_create_resubmit_update_and_stale_save(setup):
    client, item = setup["client"], first_item(setup["mine"])
    created = post(client, item, {"answer": "B"})
    assert created.status_code == 201
    assert (created.json()["version"], created.json()["status"]) == (1, "submitted")
    again = post(client, item, {"answer": "B"})
    assert again.status_code == 200 and again.json()["version"] == 1
    assert AnnotationRevision.objects.count() == 1
    url = reverse("api_annotation", args=[created.json()["id"]])
    updated = client.put(url, {"answer": {"answer": "C"}, "status": "submitted", "version": 1}, format="json")
    assert updated.status_code == 200 and updated.json()["version"] == 2
    stale = client.put(url, {"answer": {"answer": "D"}, "status": "submitted", "version": 1}, format="json")
    assert stale.status_code == 409
    assert stale.json()["current_version"] == 2 and "another tab or browser" in stale.json()["detail"]
    assert stale.json()["codes"] == ["stale_version"]
    assert Annotation.objects.get().answer == {"answer": "C"}
    assert AnnotationRevision.objects.count() == 2


def test_an_annotation_reads_as_drfs_own_representation_of_its_fields(setup):
    """AnnotationSerializer builds its output directly; DRF's field-by-field one is the reference."""
    client = setup["client"]
    post(client, first_item(setup["mine"]), {"answer": "B"})
    post(client, setup["items"][2], {"answer": None}, status="draft")
    saved = post(client, setup["items"][0], {"answer": "C"})
    annotations = list(Annotation.objects.select_related("item"))
    for annotation in annotations:
        annotation.assigned_dataset_id = annotation.item.dataset_id
    assert {annotation.status for annotation in annotations} == {"draft", "submitted"}
    for annotation in annotations:
        direct = AnnotationSerializer(annotation).data
        assert direct == serializers.Serializer.to_representation(AnnotationSerializer(annotation), annotation)
        assert list(direct) == list(AnnotationSerializer().fields)
    # After a save: from what the save read (its ItemPage), not from the item.
    assert saved.json()["external_id"] == setup["items"][0].external_id
    assert saved.json()["dataset"] == setup["partly"].pk


def test_refusals_name_the_field_and_store_nothing(setup):
    response = post(setup["client"], first_item(setup["mine"]), {"answer": "E"})
    assert response.status_code == 422  # as on the item page
    assert any(problem.startswith("answer") for problem in response.json()["problems"])
    missing = setup["client"].post(reverse("api_annotations"), {"item": first_item(setup["mine"]).pk}, format="json")
    assert missing.status_code == 400
    assert [problem.split(":")[0] for problem in missing.json()["problems"]] == ["answer", "status", "version"]
    assert not Annotation.objects.exists()


def test_drafts_need_only_the_shape(setup):
    response = post(setup["client"], first_item(setup["mine"]), {"answer": None}, status="draft")
    assert response.status_code == 201 and response.json()["status"] == "draft"


def test_frozen_dataset_refuses_saves(setup):
    setup["mine"].frozen = True
    setup["mine"].save()
    assert post(setup["client"], first_item(setup["mine"]), {"answer": "A"}).status_code == 403
    assert not Annotation.objects.exists()


def test_another_annotators_item_and_answers_are_404(setup):
    client = setup["client"]
    assert post(client, first_item(setup["other"]), {"answer": "A"}).status_code == 404
    stranger = APIClient()
    stranger.force_authenticate(make_user("annotator"))
    created = post(client, first_item(setup["mine"]), {"answer": "A"})
    url = reverse("api_annotation", args=[created.json()["id"]])
    assert stranger.get(url).status_code == 404
    assert stranger.put(url, {"answer": {"answer": "B"}, "status": "submitted", "version": 1}, format="json").status_code == 404
    assert stranger.get(reverse("api_annotations")).json()["count"] == 0
    assert client.get(reverse("api_annotations") + f"?dataset={setup['mine'].pk}").json()["count"] == 1


def test_token_authentication(setup):
    token = Token.objects.create(user=setup["annotator"])
    client = APIClient()
    assert client.get(reverse("api_datasets")).status_code in (401, 403)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get(reverse("api_datasets")).status_code == 200
    obtained = APIClient().post(reverse("api_token"), {"username": setup["annotator"].username, "password": "pass-Polis-123"})
    assert obtained.json()["token"] == token.key


def test_session_writes_need_the_csrf_token(setup):
    client = Client(enforce_csrf_checks=True)
    client.force_login(setup["annotator"])
    response = client.post(
        reverse("api_annotations"),
        {"item": first_item(setup["mine"]).pk, "answer": {"answer": "A"}, "status": "submitted", "version": 0},
        content_type="application/json",
    )
    assert response.status_code == 403
    assert not Annotation.objects.exists()


def test_schema_and_docs_page(setup):
    client = Client()
    client.force_login(setup["annotator"])
    schema = client.get(reverse("api_schema"))
    assert schema.status_code == 200 and b"/api/annotations/" in schema.content
    docs = client.get(reverse("api_docs")).content.decode()
    # Swagger UI from drf-spectacular-sidecar's static files; no inline script or style.
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in docs
    assert "<script>" not in docs and "<style" not in docs
    script = client.get(reverse("api_docs") + "?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert reverse("api_schema").encode() in script.content


def test_other_roles_cannot_save(setup):
    client = APIClient()
    client.force_authenticate(make_user("adjudicator"))
    assert client.get(reverse("api_annotations")).status_code == 403
    assert client.get(reverse("api_datasets")).status_code == 403


def test_an_unknown_numeral_word_needs_confirmation_through_the_api_too():
    annotator = make_user("annotator", username="api-liczby")
    dataset = make_dataset("numerals", [{"id": "n1", "sentence": "Mam [[20]] lat."}], name="liczby-api")
    assign_in_order(dataset, annotator)
    client = APIClient()
    client.force_authenticate(annotator)
    item = first_item(dataset)

    asked = post(client, item, {"answer": "dwadzieścia prc"})
    assert asked.status_code == 422 and asked.json()["needs_confirmation"] is True
    assert asked.json()["codes"] == ["caution"]
    assert "„prc”" in asked.json()["problems"][0]
    assert not Annotation.objects.exists()

    saved = post(client, item, {"answer": "dwadzieścia prc"}, confirmed=True)
    assert saved.status_code == 201
    assert saved.json()["metadata"] == {"confirmed_unknown_words": ["prc"]}


def test_a_withdrawn_item_is_marked_in_the_list_and_takes_no_answer(setup):
    item = first_item(setup["mine"])
    post(setup["client"], item, {"answer": "B"})
    withdraw_item(item, make_user("organizer"), "broken")
    listed = setup["client"].get(reverse("api_dataset_items", args=[setup["mine"].pk])).json()["results"]
    assert [entry["withdrawn"] for entry in listed] == [True, False, False]
    refused = post(setup["client"], item, {"answer": "C"}, version=1)
    assert refused.status_code == 403 and "withdrawn" in refused.json()["detail"]
    assert refused.json()["codes"] == ["item_withdrawn"]
    assert Annotation.objects.get(item=item).answer == {"answer": "B"}
