"""Helpers for widget tests: one assigned item, its page, and saving an answer to it."""

import json
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from annotation.models import Annotation, Item
from tests.factories import assign_in_order, make_dataset, make_user


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
        return client.post(
            self.url,
            {"intent": "submit", "answer": json.dumps(answer), "version": "0", "active_ms": "0"},
            HTTP_HX_REQUEST="true",
        )

    def partial(self, client: Client, name: str, data: dict):
        return client.post(f"{self.url}?partial={name}", data, HTTP_HX_REQUEST="true")

    def stored(self) -> Annotation | None:
        return Annotation.objects.filter(item=self.item, annotator=self.annotator).first()


def assigned_items(subtask: str, records: list[dict]) -> list[AssignedItem]:
    """The records as one dataset, all assigned in input order to one new annotator."""
    annotator = make_user("annotator")
    dataset = make_dataset(subtask, records)
    assign_in_order(dataset, annotator)
    return [
        AssignedItem(annotator, item, reverse("annotate_item", args=[dataset.pk, position]))
        for position, item in enumerate(dataset.items.order_by("ordinal"), start=1)
    ]


def assigned_item(subtask: str, record: dict) -> AssignedItem:
    return assigned_items(subtask, [record])[0]


HOSTILE = "<script>alert('x')</script> & \"quoted\" <b>bold</b> &amp;"
