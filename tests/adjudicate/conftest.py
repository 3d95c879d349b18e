"""Builders for the adjudication tests: datasets answered by annotators through the save service."""

import itertools
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from annotation.annotate.queue import item_page_of_item
from annotation.annotate.services import save_answer
from annotation.models import Assignment, Dataset, Item
from tests.annotate.conftest import wsd_records
from tests.factories import make_dataset, make_user

# Users are named here, leaving the factories' name counter (which seeds the assignment
# orders other tests check) as it was.
_names = itertools.count(1)


def person(role: str) -> User:
    return make_user(role, username=f"{role}-adjudication-{next(_names)}")


@dataclass
class Answered:
    dataset: Dataset
    annotators: list[User]
    items: list[Item]

    def url(self, item: Item) -> str:
        return reverse("adjudicate_item", args=[self.dataset.pk, item.pk])


def submit(dataset: Dataset, annotator: User, item: Item, answer: dict) -> None:
    page = item_page_of_item(annotator, item.pk)
    save_answer(page=page, answer=answer, submit=True, based_on_version=page.answer_version)


def answered_dataset(subtask: str, records: list[dict], answers: list[list[dict | None]], gold=None) -> Answered:
    """``answers[i][k]``: annotator k's answer to item i (None: not answered); every annotator
    is assigned every item."""
    dataset = make_dataset(subtask, records, gold=gold, name=f"{subtask}-adjudication-{next(_names)}")
    annotators = [person("annotator") for _ in answers[0]]
    items = list(dataset.items.order_by("ordinal"))
    Assignment.objects.bulk_create(
        Assignment(dataset=dataset, item=item, annotator=annotator, position=position)
        for annotator in annotators
        for position, item in enumerate(items, start=1)
    )
    for item, item_answers in zip(items, answers):
        for annotator, answer in zip(annotators, item_answers):
            if answer is not None:
                submit(dataset, annotator, item, answer)
    return Answered(dataset, annotators, items)


def wsd_answered(answers: list[list[str | None]], gold_letters: list[str] | None = None) -> Answered:
    records = wsd_records(len(answers))
    gold = [{"id": r["id"], "answer": letter} for r, letter in zip(records, gold_letters)] if gold_letters else None
    return answered_dataset(
        "wsd", records, [[{"answer": a} if a else None for a in row] for row in answers], gold=gold
    )


@pytest.fixture
def adjudicator():
    return person("adjudicator")
