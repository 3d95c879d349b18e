"""Builders shared by the hostile-input tests: real sample items of every subtask, assigned
to an annotator (tests.item_pages), with a client of theirs that reports a server error as a
status instead of raising it; and the campaign of the permission matrix and the API's fuzz test
(an item two annotators disagree on, an adjudicator and an organizer)."""

import json
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.test import Client

from annotation.annotate.queue import item_page_of_item
from annotation.annotate.services import save_answer
from annotation.models import Annotation, Assignment, Dataset, Item
from tests.annotate.conftest import GOLD_MARK, morphosyntax_records
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import assigned_items
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
    """The first item of an assigned dataset: its page and the annotator's client."""

    annotator: User
    dataset: Dataset
    item: Item
    page: str
    client: Client


def make_queue(subtask: str, records: list[dict] | None = None) -> Queue:
    first = assigned_items(subtask, records or sample_records(subtask))[0]
    return Queue(first.annotator, first.item.dataset, first.item, first.url, client_of(first.annotator))


@pytest.fixture
def morphosyntax_queue():
    """An annotator with a dataset of two morphosyntax items, whose gold holds GOLD_MARK."""
    annotator = make_user("annotator")
    records = morphosyntax_records(2)
    gold = [{"id": r["id"], "answer": "NIEPOPRAWNE", "corrected_sentence": GOLD_MARK} for r in records]
    dataset = make_dataset("morphosyntax", records, gold=gold)
    assign_in_order(dataset, annotator)
    return annotator, dataset


@pytest.fixture
def campaign(morphosyntax_queue):
    """The annotator's first item answered by them and, otherwise, by a second annotator: a
    disagreement, the adjudicator's case (the gold not revealed)."""
    annotator, dataset = morphosyntax_queue
    item = dataset.items.order_by("ordinal").first()
    second = make_user("annotator")
    Assignment.objects.create(dataset=dataset, item=item, annotator=second, position=1)
    answers = {annotator: {"answer": "POPRAWNE", "corrected_sentence": ""},
               second: {"answer": "NIEPOPRAWNE", "corrected_sentence": "Kot 1 śpi na kanapie."}}
    for user, answer in answers.items():
        save_answer(page=item_page_of_item(user, item.pk), answer=answer, submit=True, based_on_version=0)
    annotation = Annotation.objects.get(item=item, annotator=annotator)
    users = {
        "anonymous": None,
        "annotator": annotator,
        "other_annotator": make_user("annotator"),
        "adjudicator": make_user("adjudicator"),
        "organizer": make_user("organizer"),
    }
    return dataset, annotation, users
