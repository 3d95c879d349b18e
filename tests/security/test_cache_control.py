"""What caches may keep: nothing of the answers that carry secrets or data (no-store), and of
every other answer to a logged-in user nothing in a shared cache, and nothing shown again
without asking (private, no-cache). The permission matrix checks every URL and role; these
are the downloads and secrets themselves."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import DEFAULT_PASSWORD, make_user
from tests.security.conftest import client_of, make_queue

pytestmark = pytest.mark.django_db


def directives(response) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part.strip()}


def test_secrets_exports_and_reports_are_not_stored_and_other_pages_are_private():
    queue = make_queue("wsd")
    dataset, annotator = queue.dataset, queue.annotator
    organizer = client_of(make_user("organizer"))
    no_store = {
        "accounts page": organizer.get(reverse("organizer_accounts")),
        "a one-time link": organizer.post(reverse("organizer_accounts"), {"action": "link", "user": annotator.pk}),
        "the export page": organizer.get(reverse("organizer_exports", args=[dataset.pk])),
        "an annotator's export": organizer.get(reverse("organizer_export", args=[dataset.pk, annotator.username])),
        "the API's export": organizer.get(reverse("api_dataset_export", args=[dataset.pk]), {"source": "all"}),
        "the report": organizer.get(reverse("organizer_report", args=[dataset.pk])),
        "the report's CSV": organizer.get(reverse("organizer_report", args=[dataset.pk]), {"format": "csv"}),
        "the API's report": organizer.get(reverse("api_dataset_report", args=[dataset.pk])),
        "the campaigns": organizer.get(reverse("organizer_campaigns")),
        "a token": Client().post(reverse("api_token"), {"username": annotator.username, "password": DEFAULT_PASSWORD}),
    }
    for what, response in no_store.items():
        assert "no-store" in directives(response), (what, response.status_code, response.get("Cache-Control"))
    private = {
        "the item page": queue.client.get(queue.page),
        "the start page": queue.client.get(reverse("home")),
        "the API's items": queue.client.get(reverse("api_dataset_items", args=[dataset.pk])),
        "the datasets page": organizer.get(reverse("organizer_datasets")),
    }
    for what, response in private.items():
        assert response.status_code == 200, what
        assert {"private", "no-cache"} <= directives(response) and "no-store" not in directives(response), (
            what, response.get("Cache-Control"))
    # With a token instead of a session too.
    token = no_store["a token"].json()["token"]
    response = Client(HTTP_AUTHORIZATION=f"Token {token}").get(reverse("api_datasets"))
    assert {"private", "no-cache"} <= directives(response)
