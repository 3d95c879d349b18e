"""What an annotator sees of their own work: queues, progress, items, answers.

The queue order: assignments by position, then the skipped ones in the order they were
skipped. Every function runs a fixed number of queries, whatever the size of the dataset.
"""

from dataclasses import dataclass
from functools import cache, lru_cache

from django.contrib.auth.models import AbstractBaseUser
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import (
    Exists,
    Func,
    IntegerField,
    Model,
    OuterRef,
    QuerySet,
    Subquery,
)
from django.db.models.expressions import Col
from django.db.models.functions import Coalesce

from annotation.models import Annotation, Assignment, Dataset, Item


def _count(queryset: QuerySet) -> Coalesce:
    # COUNT(*) over the whole filtered queryset as a scalar subquery (no GROUP BY: Func is no
    # aggregate); COUNT(*) lets PostgreSQL count from the index alone.
    counted = queryset.order_by().annotate(n=Func(template="COUNT(*)", output_field=IntegerField())).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def _assigned(annotator, dataset) -> QuerySet[Assignment]:
    return Assignment.objects.filter(annotator=annotator, dataset=dataset)


def _submitted(annotator, dataset) -> QuerySet[Annotation]:
    # Submitted answers always keep their assignment (release moves only unanswered items),
    # so counting the annotator's submitted answers in the dataset counts answered assignments.
    return Annotation.objects.filter(annotator=annotator, item__dataset=dataset, status=Annotation.Status.SUBMITTED)


@dataclass(frozen=True)
class Progress:
    submitted: int
    assigned: int

    @property
    def percent(self) -> int:
        return round(100 * self.submitted / self.assigned) if self.assigned else 0

    @property
    def done(self) -> bool:
        return self.submitted >= self.assigned


@dataclass(frozen=True)
class DatasetProgress:
    dataset: Dataset
    progress: Progress

    @property
    def subtask_title(self) -> str:
        return self.dataset.subtask_title


def queue(annotator: AbstractBaseUser | int, dataset: Dataset | int) -> QuerySet[Assignment]:
    return _assigned(annotator, dataset).order_by()


def progress(annotator: AbstractBaseUser, dataset: Dataset | int) -> Progress:
    counts = Dataset.objects.filter(pk=getattr(dataset, "pk", dataset)).values_list(
        _count(_assigned(annotator, OuterRef("pk"))), _count(_submitted(annotator, OuterRef("pk")))
    )
    assigned, submitted = counts.get()
    return Progress(submitted=submitted, assigned=assigned)


def datasets_with_work(annotator: AbstractBaseUser) -> list[DatasetProgress]:
    """Every dataset the annotator has assignments in, with their progress, by name."""
    datasets = (
        Dataset.objects.filter(Exists(_assigned(annotator, OuterRef("pk"))))
        .annotate(
            assigned=_count(_assigned(annotator, OuterRef("pk"))),
            submitted=_count(_submitted(annotator, OuterRef("pk"))),
        )
        .order_by("name")
    )
    return [
        DatasetProgress(dataset, Progress(submitted=dataset.submitted, assigned=dataset.assigned))
        for dataset in datasets
    ]


# The selectors below are hand-written SQL because they run on every item page and every
# save: the ORM took longer to build their queries than the database took to answer them.


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _next_unanswered(annotator: str, dataset: str, after: str, besides: str | None = None) -> str:
    """SQL for the position of the first assignment without a submitted answer in queue
    order (NULL: none), looking first at the ones after ``after`` (so save & next moves
    forward), then from the start, then at the skipped ones, oldest skip first; never at
    position ``besides``. The arguments are SQL expressions. The three places are scalar
    subqueries of one COALESCE: the database runs a later one only when the earlier ones
    found nothing, and each stops at the first unanswered assignment in index order."""
    unanswered = f"""
        SELECT q.position FROM {_table(Assignment)} q
        WHERE q.annotator_id = {annotator} AND q.dataset_id = {dataset}
          {f"AND q.position <> {besides}" if besides else ""}
          AND NOT EXISTS (
            SELECT 1 FROM {_table(Annotation)} done
            WHERE done.item_id = q.item_id AND done.annotator_id = q.annotator_id AND done.status = %(submitted)s
          )"""
    return f"""COALESCE(
            ({unanswered} AND q.skipped_at IS NULL AND q.position > {after} ORDER BY q.position LIMIT 1),
            ({unanswered} AND q.skipped_at IS NULL AND q.position <= {after} ORDER BY q.position LIMIT 1),
            ({unanswered} AND q.skipped_at IS NOT NULL ORDER BY q.skipped_at, q.position LIMIT 1)
        )"""


@cache
def _next_unanswered_sql() -> str:
    return f"SELECT {_next_unanswered('%(annotator)s', '%(dataset)s', '%(after)s')}"


def next_unanswered_position(annotator: AbstractBaseUser, dataset_id: int, after_position: int = 0) -> int | None:
    """The position of the first assignment without a submitted answer in queue order,
    looking first at the ones after ``after_position`` (so save & next moves forward), then
    from the start, then at the skipped ones, oldest skip first."""
    params = {
        "annotator": annotator.pk,
        "dataset": dataset_id,
        "after": after_position,
        "submitted": Annotation.Status.SUBMITTED,
    }
    with connection.cursor() as cursor:
        cursor.execute(_next_unanswered_sql(), params)
        return cursor.fetchone()[0]


ANSWER_FIELD = Annotation._meta.get_field("answer")


def _columns(model: type[Model], alias: str) -> str:
    """The select list of all of ``model``'s columns, each named ``<alias>__<column>``."""
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    return ", ".join(f"{alias}.{quote(field.column)} AS {quote(f'{alias}__{field.column}')}" for field in fields)


@lru_cache(maxsize=32)  # bounded: a connection is per thread
def _readers(model: type[Model], alias: str, database: BaseDatabaseWrapper) -> list[tuple[str, Col, list]]:
    """For each of ``model``'s columns: its name in the row, the column, and the converters
    the ORM applies to its values on this connection (worked out once, not on every row)."""
    readers = []
    for field in model._meta.concrete_fields:
        column = field.get_col(alias)
        converters = database.ops.get_db_converters(column) + column.get_db_converters(database)
        readers.append((f"{alias}__{field.column}", column, converters))
    return readers


def _instance(model: type[Model], alias: str, row: dict) -> Model:
    """A model instance from the ``<alias>__<column>`` values of ``row``, converted from the
    database's types as the ORM converts them (JSON, datetimes, SQLite booleans)."""
    database = connections[DEFAULT_DB_ALIAS]
    values = []
    for name, column, converters in _readers(model, alias, database):
        value = row[name]
        for converter in converters:
            value = converter(value, column, database)
        values.append(value)
    return model.from_db(DEFAULT_DB_ALIAS, [field.attname for field in model._meta.concrete_fields], values)


# What the assignment queries bring along besides the assignment, its item and its dataset.
PAGE = "page"  # all the item page shows (see assignment_for_page)
NEXT = "next"  # the position save & next goes to once this item is submitted


@cache
def _assignment_sql(extras: str | None) -> str:
    columns = [_columns(Assignment, "a"), _columns(Item, "i"), _columns(Dataset, "d")]
    stored = ""
    if extras == PAGE:
        columns += [
            f"""(SELECT COUNT(*) FROM {_table(Assignment)} mine
                 WHERE mine.annotator_id = a.annotator_id AND mine.dataset_id = a.dataset_id) AS assigned_count""",
            f"""(SELECT COUNT(*) FROM {_table(Annotation)} done
                 JOIN {_table(Item)} done_item ON done_item.id = done.item_id
                 WHERE done.annotator_id = a.annotator_id AND done_item.dataset_id = a.dataset_id
                   AND done.status = %(submitted)s) AS submitted_count""",
            f"""(SELECT MAX(mine.position) FROM {_table(Assignment)} mine
                 WHERE mine.annotator_id = a.annotator_id AND mine.dataset_id = a.dataset_id
                   AND mine.position < a.position) AS previous_position""",
            "stored.answer AS answer, COALESCE(stored.version, 0) AS answer_version, stored.status AS answer_status",
        ]
        stored = (
            f"LEFT JOIN {_table(Annotation)} stored"
            " ON stored.item_id = a.item_id AND stored.annotator_id = a.annotator_id"
        )
    elif extras == NEXT:
        # This item is left out: once submitted it is answered, which the query cannot see yet.
        columns.append(
            f"{_next_unanswered('a.annotator_id', 'a.dataset_id', 'a.position', besides='a.position')} AS next_position"
        )
    return f"""
        SELECT {", ".join(columns)}
        FROM {_table(Assignment)} a
        JOIN {_table(Item)} i ON i.id = a.item_id
        JOIN {_table(Dataset)} d ON d.id = a.dataset_id
        {stored}
        WHERE a.annotator_id = %(annotator)s AND a.dataset_id = %(dataset)s AND a.position = %(position)s"""


def assignment_at(
    annotator: AbstractBaseUser, dataset_id: int, position: int, extras: str | None = None
) -> Assignment | None:
    """The annotator's assignment at ``position`` of their order, with its item and dataset,
    in one query. ``extras=PAGE`` adds what the item page shows (see assignment_for_page);
    ``extras=NEXT`` adds ``next_position``, where save & next goes once this item is
    submitted (``next_unanswered_position`` after it, this item aside; None: none left)."""
    params = {
        "annotator": annotator.pk, "dataset": dataset_id, "position": position, "submitted": Annotation.Status.SUBMITTED
    }
    with connection.cursor() as cursor:
        cursor.execute(_assignment_sql(extras), params)
        found = cursor.fetchone()
        if found is None:
            return None
        row = dict(zip((column[0] for column in cursor.description), found))
    assignment = _instance(Assignment, "a", row)
    assignment.item = _instance(Item, "i", row)
    assignment.dataset = _instance(Dataset, "d", row)
    if extras == PAGE:
        assignment.assigned_count = row["assigned_count"]
        assignment.submitted_count = row["submitted_count"]
        assignment.previous_position = row["previous_position"]
        assignment.answer = ANSWER_FIELD.from_db_value(row["answer"], None, connection)
        assignment.answer_version = row["answer_version"]
        assignment.answer_status = row["answer_status"]
    elif extras == NEXT:
        assignment.next_position = row["next_position"]
    return assignment


def assignment_for_page(annotator: AbstractBaseUser, dataset_id: int, position: int) -> Assignment | None:
    """``assignment_at`` with all the item page shows around it, in the same query:
    ``assigned_count``, ``submitted_count``, ``previous_position`` (the position before it in
    the order, None at the first) and the stored answer as ``answer``, ``answer_version`` (0:
    none yet) and ``answer_status`` (None: none yet)."""
    return assignment_at(annotator, dataset_id, position, extras=PAGE)


