"""What an annotator sees of their own work: queues, progress, items, answers.

The queue order: assignments by position, then the skipped ones in the order they were
skipped. Every function runs a fixed number of queries, whatever the size of the dataset.
"""

from dataclasses import dataclass
from functools import cache

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import (
    Exists,
    Func,
    IntegerField,
    Model,
    OuterRef,
    QuerySet,
    Subquery,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from annotation.annotate.qualification import qualified_sql
from annotation.core import sql_rows
from annotation.models import Annotation, Assignment, Dataset, Item, RoutedAnnotator, RoutedItem


def _count(queryset: QuerySet) -> Coalesce:
    # COUNT(*) over the whole filtered queryset as a scalar subquery (no GROUP BY: Func is no
    # aggregate); COUNT(*) lets PostgreSQL count from the index alone.
    counted = queryset.order_by().annotate(n=Func(template="COUNT(*)", output_field=IntegerField())).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def _assigned(annotator, dataset) -> QuerySet[Assignment]:
    return Assignment.objects.filter(annotator=annotator, dataset=dataset)


def _to_answer(annotator, dataset) -> QuerySet[Assignment]:
    # A withdrawn item needs no answer: it counts neither as assigned nor as submitted, or
    # an annotator who answered everything else would never be done.
    return _assigned(annotator, dataset).filter(item__withdrawn_at__isnull=True)


def _submitted(annotator, dataset) -> QuerySet[Annotation]:
    # Submitted answers always keep their assignment (release moves only unanswered items),
    # so counting the annotator's submitted answers to items assigned in the dataset counts
    # answered assignments, control items (of the dataset's control pool) among them.
    return Annotation.objects.filter(
        annotator=annotator,
        item__assignments__annotator=annotator,
        item__assignments__dataset=dataset,
        item__withdrawn_at__isnull=True,
        status=Annotation.Status.SUBMITTED,
    )


@dataclass(frozen=True)
class Progress:
    """Of an annotator in a dataset, withdrawn items left out."""

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
    qualified: bool = True  # passed the dataset's training round (or it has none)

    @property
    def subtask_title(self) -> str:
        return self.dataset.subtask_title


def queue(annotator: AbstractBaseUser | int, dataset: Dataset | int) -> QuerySet[Assignment]:
    return _assigned(annotator, dataset).order_by()


def _routed(annotator, dataset) -> QuerySet[RoutedAnnotator]:
    return RoutedAnnotator.objects.filter(annotator=annotator, dataset=dataset, dataset__routing=True)


def works_on(annotator: AbstractBaseUser, dataset_id: int) -> bool:
    """Whether the annotator has a queue in the dataset, or is one of its routed annotators."""
    return Dataset.objects.filter(Exists(_assigned(annotator, OuterRef("pk"))) | Exists(_routed(annotator, OuterRef("pk"))),
                                  pk=dataset_id).exists()


def is_routed(dataset_id: int) -> bool:
    return Dataset.objects.filter(pk=dataset_id, routing=True).exists()


def held_position(annotator: AbstractBaseUser, dataset_id: int) -> int | None:
    """A routed dataset: the position of the item the annotator holds a reservation of (None: none)."""
    held = _assigned(annotator, dataset_id).filter(reserved_until__isnull=False).order_by("position")
    return held.values_list("position", flat=True).first()


def _routed_total() -> RawSQL:
    """How many positions a routed dataset's annotator may reach (routed_total_sql), for a query of datasets."""
    return RawSQL(routed_total_sql(sql_rows.table(Dataset)), [])


def routed_total_sql(dataset: str) -> str:
    """SQL: how many positions an annotator of the routed dataset ``dataset`` (its table or
    alias) may reach: its quota, else its items, the sample's when it has one, withdrawn items
    left out; 0 for fixed queues. Progress and "Item N of M" count against it. Its items are
    counted by the last one's ordinal (they are numbered from 0 at import and never deleted one
    by one, only withdrawn): one index entry read instead of every item at each page."""
    items = sql_rows.table(Item)
    return f"""CASE WHEN {dataset}.routing THEN COALESCE({dataset}.quota, COALESCE({dataset}.sample_size, (
                   SELECT COALESCE(MAX(every.ordinal) + 1, 0) FROM {items} every WHERE every.dataset_id = {dataset}.id)) - (
                   SELECT COUNT(*) FROM {items} w
                   JOIN {sql_rows.table(RoutedItem)} r ON r.item_id = w.id
                   WHERE w.withdrawn_at IS NOT NULL AND w.dataset_id = {dataset}.id)) ELSE 0 END"""


def progress(annotator: AbstractBaseUser, dataset: Dataset | int) -> Progress:
    counts = Dataset.objects.filter(pk=getattr(dataset, "pk", dataset)).values_list(
        _count(_to_answer(annotator, OuterRef("pk"))), _count(_submitted(annotator, OuterRef("pk"))), _routed_total()
    )
    assigned, submitted, routed_total = counts.get()
    return Progress(submitted=submitted, assigned=max(assigned, routed_total))


def datasets_with_work(annotator: AbstractBaseUser) -> list[DatasetProgress]:
    """Every dataset the annotator has assignments in (archived ones aside), with their progress and whether they
    passed its training round, by name."""
    datasets = (
        Dataset.objects.filter(Exists(_assigned(annotator, OuterRef("pk"))) | Exists(_routed(annotator, OuterRef("pk"))),
                               archived_at__isnull=True)
        .annotate(
            assigned=_count(_to_answer(annotator, OuterRef("pk"))),
            routed_total=_routed_total(),
            submitted=_count(_submitted(annotator, OuterRef("pk"))),
            qualified=RawSQL(qualified_sql(str(int(annotator.pk)), f"{sql_rows.table(Dataset)}.id"), []),
        )
        .order_by("name")
    )
    return [
        DatasetProgress(dataset, Progress(submitted=dataset.submitted, assigned=max(dataset.assigned, dataset.routed_total)),
                        bool(dataset.qualified))
        for dataset in datasets
    ]


def _next_unanswered(annotator: str, dataset: str, after: str, besides: str | None = None) -> str:
    """SQL for the position of the first assignment without a submitted answer in queue
    order, withdrawn items left out (NULL: none), looking first at the ones after ``after`` (so save & next moves
    forward), then from the start, then at the skipped ones, oldest skip first; never at
    position ``besides``. The arguments are SQL expressions. The three places are scalar
    subqueries of one COALESCE: the database runs a later one only when the earlier ones
    found nothing, and each stops at the first unanswered assignment in index order.
    Withdrawn items are left out by a join on the item's key: written as NOT EXISTS, it
    became an anti-join with a scan of every item of the database (1 ms at 5,000 items)."""
    unanswered = f"""
        SELECT q.position FROM {sql_rows.table(Assignment)} q
        JOIN {sql_rows.table(Item)} w ON w.id = q.item_id AND w.withdrawn_at IS NULL
        WHERE q.annotator_id = {annotator} AND q.dataset_id = {dataset}
          {f"AND q.position <> {besides}" if besides else ""}
          AND NOT EXISTS (
            SELECT 1 FROM {sql_rows.table(Annotation)} done
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


def _json(model: type[Model], field: str, value: str | None):
    """A JSON column's value as the ORM reads it (the backends hand JSON over as text)."""
    return sql_rows.loaded_value(model._meta.get_field(field), value)


@cache
def _qualified_sql() -> str:
    return f"SELECT {qualified_sql('%(annotator)s', '%(dataset)s')}"


def is_qualified(annotator: AbstractBaseUser, dataset_id: int) -> bool:
    """Whether the annotator may work on the dataset's items (annotation.annotate.qualification)."""
    with connection.cursor() as cursor:
        cursor.execute(_qualified_sql(), {"annotator": annotator.pk, "dataset": dataset_id})
        return bool(cursor.fetchone()[0])


@dataclass(frozen=True)
class ItemPage:
    """One of an annotator's assigned items with everything its page and its saves read.

    Plain values only (no model instances): built by ``item_page`` and ``item_page_of_item``
    from one query, whichever request it serves (the page, a draft, a submit, a partial).
    """

    assignment_id: int
    annotator_id: int
    position: int  # in the annotator's own order, 1..n
    skipped: bool
    item_id: int
    external_id: str
    payload: dict  # the item's input record
    withdrawn: bool  # by an organizer: it needs no answer, and takes none
    dataset_id: int
    dataset_name: str
    subtask: str
    frozen: bool
    auto_majority: bool  # a submit may settle the item by its majority (adjudication)
    answer: dict | None  # the stored answer fields; None: nothing stored yet
    answer_version: int  # 0: nothing stored yet
    answer_status: str | None  # an Annotation.Status; None: nothing stored yet
    progress: Progress  # of the annotator in this dataset, withdrawn items left out
    order_length: int  # the annotator's assignments in this dataset, withdrawn items included
    previous_position: int | None  # the position before this one in the order, withdrawn items left out; None: none
    next_position: int | None  # where save & next goes once this item is submitted; None: none left (routed: always)
    qualified: bool  # the annotator passed the dataset's training round (or it has none)
    routed: bool = False  # the dataset routes items (annotation.annotate.routing) instead of fixed queues
    reservation_minutes: int = 0  # routed: how long an opened item stays reserved
    reserved: bool = False  # routed: the annotator holds an open reservation of the item
    answers_per_item: int = 0  # routed: k

    @property
    def submitted(self) -> bool:
        return self.answer_status == Annotation.Status.SUBMITTED


def _withdrawn_count(*, answered: bool) -> str:
    """SQL for how many of the annotator's assignments in the dataset of assignment ``a`` are
    withdrawn items (``answered``: and have a submitted answer), counted from the withdrawn
    items (a partial index holds only them, usually none), so that the cost does not grow with
    the queue."""
    answer = f"""JOIN {sql_rows.table(Annotation)} done
              ON done.item_id = w.id AND done.annotator_id = gone.annotator_id AND done.status = %(submitted)s""" if answered else ""
    return f"""(SELECT COUNT(*) FROM {sql_rows.table(Item)} w
                JOIN {sql_rows.table(Assignment)} gone ON gone.item_id = w.id AND gone.annotator_id = a.annotator_id
                {answer}
                WHERE w.withdrawn_at IS NOT NULL AND gone.dataset_id = a.dataset_id)"""


@cache
def _item_page_sql(where: str) -> str:
    # An archived dataset takes no answers, as a frozen one (its items are kept as they are).
    # This item is left out of next_position: once submitted it is answered, which the query
    # cannot see yet. A routed dataset's next item is routing's choice: its queue is not
    # walked (the walk from the start read every position the annotator had answered). The
    # previous position walks the queue's index back from this one and stops at the first
    # item not withdrawn (MAX() over the join would read the whole start of the queue).
    return f"""
        SELECT a.id, a.annotator_id, a.position, a.skipped_at IS NOT NULL,
               i.id, i.external_id, i.payload, i.withdrawn_at IS NOT NULL,
               d.id, d.name, d.subtask, d.frozen OR d.archived_at IS NOT NULL, d.auto_majority,
               stored.answer, COALESCE(stored.version, 0), stored.status,
               (SELECT COUNT(*) FROM {sql_rows.table(Assignment)} answered
                JOIN {sql_rows.table(Annotation)} done
                  ON done.item_id = answered.item_id AND done.annotator_id = answered.annotator_id
                WHERE answered.annotator_id = a.annotator_id AND answered.dataset_id = a.dataset_id
                  AND done.status = %(submitted)s),
               (SELECT COUNT(*) FROM {sql_rows.table(Assignment)} mine
                WHERE mine.annotator_id = a.annotator_id AND mine.dataset_id = a.dataset_id),
               {_withdrawn_count(answered=False)},
               {_withdrawn_count(answered=True)},
               (SELECT mine.position FROM {sql_rows.table(Assignment)} mine
                JOIN {sql_rows.table(Item)} w ON w.id = mine.item_id AND w.withdrawn_at IS NULL
                WHERE mine.annotator_id = a.annotator_id AND mine.dataset_id = a.dataset_id
                  AND mine.position < a.position
                ORDER BY mine.position DESC LIMIT 1),
               CASE WHEN d.routing THEN NULL
                    ELSE {_next_unanswered("a.annotator_id", "a.dataset_id", "a.position", besides="a.position")} END,
               {qualified_sql("a.annotator_id", "a.dataset_id")},
               d.routing, d.reservation_minutes, a.reserved_until IS NOT NULL, COALESCE(d.answers_per_item, 0),
               {routed_total_sql('d')}
        FROM {sql_rows.table(Assignment)} a
        JOIN {sql_rows.table(Item)} i ON i.id = a.item_id
        JOIN {sql_rows.table(Dataset)} d ON d.id = a.dataset_id
        LEFT JOIN {sql_rows.table(Annotation)} stored ON stored.item_id = a.item_id AND stored.annotator_id = a.annotator_id
        WHERE a.annotator_id = %(annotator)s AND {where}"""


def _item_page(where: str, params: dict) -> ItemPage | None:
    with connection.cursor() as cursor:
        cursor.execute(_item_page_sql(where), {**params, "submitted": Annotation.Status.SUBMITTED})
        row = cursor.fetchone()
    if row is None:
        return None
    (assignment_id, annotator_id, position, skipped, item_id, external_id, payload, withdrawn, dataset_id,
     dataset_name, subtask, frozen, auto_majority, answer, answer_version, answer_status, submitted, assigned,
     assigned_withdrawn, submitted_withdrawn, previous, next_position, qualified, routed, reservation_minutes,
     reserved, answers_per_item, routed_total) = row
    return ItemPage(
        assignment_id=assignment_id,
        annotator_id=annotator_id,
        position=position,
        skipped=bool(skipped),  # SQLite answers 0/1
        item_id=item_id,
        external_id=external_id,
        payload=_json(Item, "payload", payload),
        withdrawn=bool(withdrawn),  # SQLite answers 0/1
        dataset_id=dataset_id,
        dataset_name=dataset_name,
        subtask=subtask,
        frozen=bool(frozen),
        auto_majority=bool(auto_majority),
        answer=_json(Annotation, "answer", answer),
        answer_version=answer_version,
        answer_status=answer_status,
        progress=Progress(submitted=submitted - submitted_withdrawn,
                          assigned=max(assigned - assigned_withdrawn, routed_total)),
        order_length=max(assigned, routed_total),
        previous_position=previous,
        next_position=next_position,
        qualified=bool(qualified),  # SQLite answers 0/1
        routed=bool(routed),
        reservation_minutes=reservation_minutes,
        reserved=bool(reserved),
        answers_per_item=answers_per_item,
    )


def item_page(annotator: AbstractBaseUser, dataset_id: int, position: int) -> ItemPage | None:
    """The annotator's assigned item at ``position`` of their order in the dataset (None: no
    such assignment), in one query."""
    where = "a.dataset_id = %(dataset)s AND a.position = %(position)s"
    return _item_page(where, {"annotator": annotator.pk, "dataset": dataset_id, "position": position})


def item_page_of_item(annotator: AbstractBaseUser, item_id: int) -> ItemPage | None:
    """The annotator's assignment of the item ``item_id`` (None: not assigned to them), in one query."""
    return _item_page("a.item_id = %(item)s", {"annotator": annotator.pk, "item": item_id})


def assigned_items(annotator: AbstractBaseUser, dataset_id: int) -> QuerySet[Item]:
    """The annotator's assigned items of the dataset in their order, each with its
    ``position`` there; only the fields the API's item list shows."""
    position = Assignment.objects.filter(item=OuterRef("pk"), annotator=annotator).values("position")[:1]
    return (
        Item.objects.filter(assignments__annotator=annotator, assignments__dataset_id=dataset_id)
        .annotate(position=Subquery(position))
        .order_by("position")
        .only("id", "external_id", "payload", "withdrawn_at")
    )


def dataset_subtask(dataset_id: int) -> str:
    """The subtask of the dataset (which raises Dataset.DoesNotExist if there is none)."""
    return Dataset.objects.values_list("subtask", flat=True).get(pk=dataset_id)
