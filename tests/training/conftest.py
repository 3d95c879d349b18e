"""A wsd dataset with a training pool (three items, one explained) and a control pool."""

import pytest

from annotation.models import Dataset, Explanation
from tests.annotate.conftest import wsd_records
from tests.factories import make_dataset, make_user

EXPLANATION_MARK = "WYJAŚNIENIE-ZŁOTE"


def make_pool(dataset, kind: str, records: list[dict], gold: list[dict]):
    pool = make_dataset(dataset.subtask, records, gold, name=f"{dataset.name}.{kind}")
    pool.pool_of, pool.pool_kind = dataset, kind
    pool.save()
    return pool


@pytest.fixture
def dataset():
    return make_dataset("wsd", wsd_records(12), [{"id": f"wsd-{n}", "answer": "A"} for n in range(1, 13)])


@pytest.fixture
def training_pool(dataset):
    records = [{**record, "id": f"train-{n}"} for n, record in enumerate(wsd_records(3), 1)]
    pool = make_pool(dataset, Dataset.PoolKind.TRAINING, records, [{"id": f"train-{n}", "answer": "B"} for n in range(1, 4)])
    Explanation.objects.create(item=pool.items.get(external_id="train-1"), text=f"B: {EXPLANATION_MARK}")
    return pool


@pytest.fixture
def control_pool(dataset):
    records = [{**record, "id": f"control-{n}"} for n, record in enumerate(wsd_records(6), 1)]
    return make_pool(dataset, Dataset.PoolKind.CONTROL, records, [{"id": f"control-{n}", "answer": "C"} for n in range(1, 7)])


@pytest.fixture
def annotator():
    return make_user("annotator")


@pytest.fixture
def organizer():
    return make_user("organizer")
