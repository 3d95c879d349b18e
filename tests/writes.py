"""What a request wrote: PostgreSQL counts each table's inserted, updated and deleted rows in
the transaction (pg_stat_xact_user_tables), so a test running in one sees every write."""

from django.db import connection


def rows_written() -> dict[str, int]:
    """Table -> rows inserted, updated and deleted so far in this transaction ({} off PostgreSQL)."""
    if connection.vendor != "postgresql":
        return {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_xact_user_tables")
        return dict(cursor.fetchall())


def tables_written(before: dict[str, int]) -> set[str]:
    """The tables written to since ``before`` (a rows_written())."""
    return {table for table, rows in rows_written().items() if rows != before.get(table, 0)}
