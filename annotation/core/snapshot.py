"""Reads that see the database at one moment: the exports and reports of a dataset.

An export or a report reads a dataset in several queries (the items, the withdrawn ones, the
answers, the assignments, the adjudicated cases). PostgreSQL's default isolation, READ
COMMITTED, gives each query a snapshot of its own, so an answer submitted or an item withdrawn
between two of them would make the figures of one report disagree with each other (or refuse
an export over an item one query saw withdrawn and another did not). ``one_snapshot`` runs
them in one REPEATABLE READ transaction instead: every query sees what was committed before
the first one, and nothing is locked.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def one_snapshot() -> Iterator[None]:
    """Every query inside sees the database as it was at the first one (also a decorator).

    On PostgreSQL only: SQLite's transactions here take the write lock at their start
    (``transaction_mode`` IMMEDIATE), which would hold every save back for the length of a
    report. Inside a transaction already (a caller's, a test's) it adds nothing: that
    transaction's isolation level cannot change any more."""
    if connection.vendor != "postgresql" or not transaction.get_autocommit():
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield
