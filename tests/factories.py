"""Small builders for test data, written straight to the database."""

import itertools

from django.contrib.auth.models import Group, User

from annotation.models import Assignment, Dataset, GoldAnswer, Item

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
