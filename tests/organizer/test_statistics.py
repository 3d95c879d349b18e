"""An import and an assignment leave PostgreSQL's planner statistics of the tables they filled
fresh (ANALYZE once they commit): the first saves after them are planned on the real sizes."""

import json

import pytest
from django.db import connection

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.assigning import assign
from annotation.datasets.importing import import_dataset
from annotation.models import Assignment, Item
from tests.factories import make_dataset, make_user
from tests.organizer.conftest import sample_files

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statistics"),
]


def planned_rows(model) -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [model._meta.db_table])
        return cursor.fetchone()[0]


def wsd_records(count: int) -> list[dict]:
    return [
        {
            "id": f"w{index}",
            "reference_sentence": "Zamek [[TARGET]]stoi[[/TARGET]].",
            "candidates": {label: f"To [[TARGET]]{label}[[/TARGET]]." for label in "ABCD"},
        }
        for index in range(count)
    ]


def test_an_import_analyzes_the_items_table_once_it_commits(django_capture_on_commit_callbacks):
    data = "".join(json.dumps(record) + "\n" for record in wsd_records(37)).encode()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        import_dataset(subtask="wsd", name="fresh", inputs=SourceFile("in.jsonl", data))
    assert len(callbacks) == 1
    assert planned_rows(Item) == Item.objects.count() == 37


def test_a_refused_import_analyzes_nothing(django_capture_on_commit_callbacks):
    inputs, _gold = sample_files("wsd")
    with django_capture_on_commit_callbacks(execute=True) as callbacks, pytest.raises(Refused):
        import_dataset(subtask="wsd", name="", inputs=SourceFile("in.jsonl", inputs.read_bytes()))
    assert callbacks == []


def test_an_assignment_analyzes_the_assignments_table_once_it_commits(django_capture_on_commit_callbacks):
    dataset = make_dataset("wsd", wsd_records(29), name="assigned")
    annotators = [make_user("annotator", username=f"a{number}") for number in range(3)]
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assign(dataset, annotators, per_item=2)
    assert len(callbacks) == 1
    assert planned_rows(Assignment) == Assignment.objects.count() == 58
