"""Small builders for test data, written straight to the database."""

import itertools
from collections import Counter

from django.contrib.auth.models import Group, User

from annotation.models import Annotation, Assignment, Dataset, GoldAnswer, Item

_counter = itertools.count(1)
DEFAULT_PASSWORD = "pass-Polis-123"


def make_user(role: str = "annotator", username: str | None = None, password: str = DEFAULT_PASSWORD) -> User:
    username = username or f"{role}{next(_counter)}"
    user = User.objects.create_user(username=username, password=password, is_staff=role == "organizer")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def make_dataset(subtask: str, records: list[dict], gold: list[dict] | None = None, name: str | None = None) -> Dataset:
    dataset = Dataset.objects.create(
        name=name or f"{subtask}-{next(_counter)}",
        subtask=subtask,
        source_filename="inputs.jsonl",
        source_sha256="0" * 64,
    )
    items = Item.objects.bulk_create(
        Item(dataset=dataset, external_id=record["id"], payload=record, ordinal=ordinal)
        for ordinal, record in enumerate(records)
    )
    if gold:
        by_id = {item.external_id: item for item in items}
        GoldAnswer.objects.bulk_create(GoldAnswer(item=by_id[line["id"]], payload=line) for line in gold)
    return dataset


def assign_in_order(dataset: Dataset, annotator: User) -> list[Assignment]:
    """Assign every item of the dataset to the annotator in input order (position 1..n)."""
    return Assignment.objects.bulk_create(
        Assignment(dataset=dataset, item=item, annotator=annotator, position=position)
        for position, item in enumerate(dataset.items.order_by("ordinal"), start=1)
    )


def gold_against_answers(dataset: Dataset) -> Item:
    """Make the gold of a wsd or coreference dataset's first unanimously answered item another
    letter than its answers, so that the item enters the gold audit; returns the item."""
    answers: dict[int, Counter] = {}
    for item_id, label in Annotation.objects.filter(item__dataset=dataset, status="submitted").values_list(
            "item_id", "answer__answer"):
        answers.setdefault(item_id, Counter())[label] += 1
    item_id, labels = next((item_id, labels) for item_id, labels in sorted(answers.items())
                           if len(labels) == 1 and sum(labels.values()) >= 2)
    other = next(letter for letter in "ABCD" if letter not in labels)
    item = Item.objects.select_related("gold").get(pk=item_id)
    GoldAnswer.objects.filter(item=item).update(payload={**item.gold.payload, "answer": other})
    return item
