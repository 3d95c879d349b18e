"""The planner's statistics of tables a service has just filled.

PostgreSQL plans each query from its statistics of the tables, which autovacuum renews about a
minute after a large change: until then the first pages and saves after an import or an
assignment are planned as if the tables were as small as before (in the issue's measurement,
the first 1,000 saves after assigning 5,000 items to 20 annotators: median 108.8 ms instead
of 6.7 ms). A service that fills tables calls ``analyze_after_commit`` with their models.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import Model

from annotation.core.sql_rows import table


def analyze_after_commit(*models: type[Model]) -> None:
    """ANALYZE the models' tables once the current transaction commits (at once outside one),
    on PostgreSQL; nothing elsewhere. A failed ANALYZE leaves the committed work as it is."""
    if connection.vendor != "postgresql":
        return
    tables = ", ".join(dict.fromkeys(table(model) for model in models))
    transaction.on_commit(lambda: _analyze(tables), robust=True)


def _analyze(tables: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {tables}")
