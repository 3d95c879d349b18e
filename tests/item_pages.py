"""Item pages in tests: their URL, requests as the page's script sends them (htmx), and
assigned items with their page, their saves and their stored answer."""

import json
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.models import Annotation, Item
from tests.factories import assign_in_order, make_dataset, make_user


def item_url(dataset, position: int) -> str:
    return reverse("annotate_item", args=[dataset.pk, position])


def htmx_post(client: Client, url: str, data: dict, **extra):
    """A POST as the item page's script sends it (htmx)."""
    return client.post(url, data, HTTP_HX_REQUEST="true", **extra)


def next_location(response) -> str:
    """Where a save & next sent the page: the URL pushed with the next item swapped in, or
    the redirect to the end-of-queue page."""
    return response.headers.get("HX-Push-Url") or response["HX-Redirect"]


def htmx_get(client: Client, url: str, data: dict | None = None, **extra):
    """A GET as a widget's partial sends it (htmx)."""
    return client.get(url, data, HTTP_HX_REQUEST="true", **extra)


@dataclass
class AssignedItem:
    annotator: User
    item: Item
    url: str

    def client(self) -> Client:
        client = Client()
        client.force_login(self.annotator)
        return client

    def submit(self, client: Client, answer: object):
        """Save & next, as the page's script sends it (an htmx POST)."""
        return htmx_post(
            client, self.url, {"intent": "submit", "answer": json.dumps(answer), "version": "0", "active_ms": "0"}
        )

    def partial(self, client: Client, name: str, data: dict):
        return htmx_post(client, f"{self.url}?partial={name}", data)

    def stored(self) -> Annotation | None:
        return Annotation.objects.filter(item=self.item, annotator=self.annotator).first()


def assigned_items(subtask: str, records: list[dict]) -> list[AssignedItem]:
    """The records as one dataset, all assigned in input order to one new annotator."""
    annotator = make_user("annotator")
    dataset = make_dataset(subtask, records)
    assign_in_order(dataset, annotator)
    return [
        AssignedItem(annotator, item, item_url(dataset, position))
        for position, item in enumerate(dataset.items.order_by("ordinal"), start=1)
    ]


def assigned_item(subtask: str, record: dict) -> AssignedItem:
    return assigned_items(subtask, [record])[0]


HOSTILE = "<script>alert('x')</script> & \"quoted\" <b>bold</b> &amp;"
