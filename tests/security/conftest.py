"""Builders shared by the hostile-input tests: real sample items of every subtask, assigned
to an annotator who is logged in, and the item page and API as that annotator sees them."""

import json
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.test import Client

from annotation.models import Dataset, Item
from tests.annotate.conftest import item_url
from tests.factories import assign_in_order, make_dataset, make_user
from tests.organizer.conftest import sample_files


def sample_records(subtask: str, count: int = 3) -> list[dict]:
    inputs, _ = sample_files(subtask)
    lines = [line for line in inputs.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [json.loads(line) for line in lines[:count]]


def client_of(user: User) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@dataclass
class Queue:
    annotator: User
    dataset: Dataset
    client: Client

    @property
    def item(self) -> Item:
        return self.dataset.items.get(ordinal=0)

    @property
    def page(self) -> str:
        return item_url(self.dataset, 1)


def make_queue(subtask: str, records: list[dict] | None = None) -> Queue:
    annotator = make_user("annotator")
    dataset = make_dataset(subtask, records or sample_records(subtask))
    assign_in_order(dataset, annotator)
    return Queue(annotator, dataset, client_of(annotator))


@pytest.fixture
def queue_of():
    return make_queue
