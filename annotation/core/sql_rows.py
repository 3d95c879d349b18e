"""Rows of hand-written queries as model instances, and hand-written inserts and updates.

Every save and every page reads the user and writes an answer: a few rows each, for which
the ORM took longer to build its query (or a raw query set to map its columns) than the
database took to answer. These helpers do what the ORM does for such rows, with the SQL
worked out once per process: a model's columns in its field order, the conversion of what
the database returns (``loaded_value``: JSON text, SQLite's naive UTC dates) and of what is
sent to it (``Field.get_db_prep_save``).
"""

from collections.abc import Sequence
from datetime import datetime
from datetime import timezone as dt_timezone
from functools import cache

from django.conf import settings
from django.db import connection
from django.db.models import Field, Model
from django.utils import timezone


def table(model: type[Model]) -> str:
    """The model's table, quoted for hand-written SQL: ``"annotation_item"``."""
    return connection.ops.quote_name(model._meta.db_table)


@cache
def columns(model: type[Model], alias: str) -> str:
    """The model's columns in its field order, as ``instance`` takes them: ``alias."id", ...``."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def column_count(model: type[Model]) -> int:
    return len(model._meta.concrete_fields)


def loaded_value(field: Field, value):
    """A column's value as the ORM loads it, through documented hooks only: the field's
    ``from_db_value`` (JSON arrives as text) and an aware datetime where the backend hands a
    naive one over (SQLite stores UTC)."""
    if hasattr(field, "from_db_value"):
        value = field.from_db_value(value, None, connection)
    if isinstance(value, datetime) and settings.USE_TZ and timezone.is_naive(value):
        value = timezone.make_aware(value, dt_timezone.utc)
    return value


def instance(model: type[Model], values: Sequence) -> Model:
    """The model instance of a row of ``columns(model, ...)`` (as loaded by the ORM)."""
    fields = model._meta.concrete_fields
    row = model(*(loaded_value(field, value) for field, value in zip(fields, values)))
    mark_stored(row)
    return row


@cache
def _fields(model: type[Model], names: tuple[str, ...]) -> tuple:
    return tuple(model._meta.get_field(name) for name in names)


@cache
def column_list(model: type[Model], names: tuple[str, ...]) -> str:
    """The columns of the fields ``names`` (attribute names), quoted, comma-separated."""
    return ", ".join(connection.ops.quote_name(field.column) for field in _fields(model, names))


@cache
def insert_sql(model: type[Model], names: tuple[str, ...]) -> str:
    """INSERT of one row of the fields ``names``; its parameters: ``prepared(row, names)``."""
    return f"INSERT INTO {table(model)} ({column_list(model, names)}) VALUES ({', '.join(['%s'] * len(names))})"


def prepared(row: Model, names: tuple[str, ...]) -> list:
    """The values of the fields ``names`` of ``row`` as the database takes them."""
    return [field.get_db_prep_save(getattr(row, field.attname), connection) for field in _fields(type(row), names)]


def stored(row: Model, pk: int) -> None:
    """Mark ``row`` as stored with this primary key, as the ORM leaves an instance it saved."""
    row.pk = pk
    mark_stored(row)


def mark_stored(row: Model) -> None:
    """The model state the ORM gives a loaded or saved instance (Django's documentation shows
    it in its example of Model.from_db): not being added, in this database."""
    row._state.adding = False
    row._state.db = connection.alias


@cache
def _insert_returning_pk_sql(model: type[Model], names: tuple[str, ...]) -> str:
    return f"{insert_sql(model, names)} RETURNING {connection.ops.quote_name(model._meta.pk.column)}"


def insert(row: Model, names: tuple[str, ...]) -> None:
    """Insert the unsaved ``row`` with the fields ``names`` (attribute names, e.g. ``item_id``;
    nothing else is filled in, neither defaults nor auto_now dates); sets its primary key."""
    with connection.cursor() as cursor:
        if connection.features.can_return_columns_from_insert:
            cursor.execute(_insert_returning_pk_sql(type(row), names), prepared(row, names))
            stored(row, cursor.fetchone()[0])
        else:  # SQLite before 3.35
            cursor.execute(insert_sql(type(row), names), prepared(row, names))
            stored(row, cursor.lastrowid)


@cache
def _update_sql(model: type[Model], names: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in _fields(model, names))
    return f"UPDATE {table(model)} SET {assignments} WHERE {quote(model._meta.pk.column)} = %s"


def update(row: Model, names: tuple[str, ...]) -> None:
    """Write the fields ``names`` of ``row`` (attribute names; auto_now dates are not touched)."""
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(type(row), names), [*prepared(row, names), row.pk])
