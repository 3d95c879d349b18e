"""Exports and reports read a dataset as it was at their first query (annotation.core.snapshot)."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections

from annotation.core.snapshot import one_snapshot
from annotation.datasets.organizing import withdraw_item
from annotation.models import Item
from annotation.results.exporting import DatasetReads
from tests.factories import make_dataset, make_user
from tests.widgets.test_commas import RECORD

# A second connection must see what the first committed, so no test-wide transaction.
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="one_snapshot acts on PostgreSQL only (see its docstring)"),
]


def withdrawn_meanwhile(reads: DatasetReads, organizer: User) -> list[str]:
    """What ``reads`` says is withdrawn when ``organizer`` withdraws an item, on another
    connection, after its first query."""
    assert reads.answers.items  # the first query: the counted items with their answers
    item = Item.objects.get(dataset=reads.dataset, external_id="c-2")

    def withdraw() -> None:
        try:
            withdraw_item(item, organizer, "broken")
        finally:
            connections.close_all()

    thread = threading.Thread(target=withdraw)
    thread.start()
    thread.join()
    return reads.withdrawn


def test_reads_in_one_snapshot_do_not_see_a_withdrawal_made_after_their_first_query():
    dataset, organizer = make_dataset("commas", [RECORD, {**RECORD, "id": "c-2"}]), make_user("organizer")
    with one_snapshot():
        assert withdrawn_meanwhile(DatasetReads(dataset), organizer) == []
    assert DatasetReads(dataset).withdrawn == ["c-2"]


def test_reads_outside_one_snapshot_see_it():
    """The test above can fail: without the snapshot the later query sees the withdrawal."""
    dataset, organizer = make_dataset("commas", [RECORD, {**RECORD, "id": "c-2"}]), make_user("organizer")
    assert withdrawn_meanwhile(DatasetReads(dataset), organizer) == ["c-2"]
