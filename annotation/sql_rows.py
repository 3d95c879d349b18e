"""Rows of hand-written queries as model instances, and hand-written inserts and updates.

Every save and every page reads the user and writes an answer: a few rows each, for which
the ORM took longer to build its query (or a raw query set to map its columns) than the
database took to answer. These helpers do what the ORM does for such rows, with the SQL and
the column conversions worked out once per process: a model's columns in its field order,
the backend's conversions of what the database returns (JSON text, SQLite's dates and
booleans), and of what is sent to it (``Field.get_db_prep_save``).
"""

from collections.abc import Sequence
from functools import cache, lru_cache

from django.db import connection
from django.db.models import Model
from django.db.models.expressions import Col


def quoted(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def columns(model: type[Model], alias: str) -> str:
    """The model's columns in its field order, as ``instance`` takes them: ``alias."id", ...``."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def column_count(model: type[Model]) -> int:
    return len(model._meta.concrete_fields)


# Per connection's operations object: each thread has a connection of its own, and the
# backend's converters are its methods.
@lru_cache(maxsize=32)
def _converters(model: type[Model], operations) -> tuple[tuple[int, Col, tuple], ...]:
    """(index, column, converters) of the model's columns that need converting, as the ORM
    finds them for a query of the model."""
    found = []
    for index, field in enumerate(model._meta.concrete_fields):
        column = field.get_col(model._meta.db_table)
        converters = (*operations.get_db_converters(column), *column.get_db_converters(operations.connection))
        if converters:
            found.append((index, column, converters))
    return tuple(found)


@cache
def _attnames(model: type[Model]) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


def instance(model: type[Model], values: Sequence) -> Model:
    """The model instance of a row of ``columns(model, ...)`` (as loaded by the ORM)."""
    values = list(values)
    for index, column, converters in _converters(model, connection.ops):
        for converter in converters:
            values[index] = converter(values[index], column, connection)
    return model.from_db(connection.alias, _attnames(model), values)


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
    return f"INSERT INTO {quoted(model)} ({column_list(model, names)}) VALUES ({', '.join(['%s'] * len(names))})"


def prepared(row: Model, names: tuple[str, ...]) -> list:
    """The values of the fields ``names`` of ``row`` as the database takes them."""
    return [field.get_db_prep_save(getattr(row, field.attname), connection) for field in _fields(type(row), names)]


def stored(row: Model, pk: int) -> None:
    """Mark ``row`` as stored with this primary key, as the ORM leaves an instance it saved
    (see Model.from_db in Django's documentation)."""
    row.pk = pk
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
    return f"UPDATE {quoted(model)} SET {assignments} WHERE {quote(model._meta.pk.column)} = %s"


def update(row: Model, names: tuple[str, ...]) -> None:
    """Write the fields ``names`` of ``row`` (attribute names; auto_now dates are not touched)."""
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(type(row), names), [*prepared(row, names), row.pk])
