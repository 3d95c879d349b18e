"""What organizers see of a campaign: datasets, progress per annotator, flags.

Every function here runs a fixed number of queries, whatever the size of the dataset.
"""

import statistics
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, F, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from annotation.models import Annotation, Assignment, Dataset, Flag, GoldAnswer, Item, ModelSubmission


@dataclass(frozen=True)
class AnnotatorProgress:
    user_id: int
    username: str
    assigned: int
    submitted: int
    median_active_ms: float | None  # over their submitted answers

    @property
    def median_active_seconds(self) -> float | None:
        return None if self.median_active_ms is None else self.median_active_ms / 1000

    @property
    def percent(self) -> int:
        return round(100 * self.submitted / self.assigned) if self.assigned else 0


def _count(queryset: QuerySet, field: str = "dataset") -> Subquery:
    # A correlated COUNT per dataset: joining items and assignments in one query would
    # multiply their rows (items x assignments).
    counted = (
        queryset.filter(**{field: OuterRef("pk")})
        .order_by()
        .values(field)
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def datasets_overview(*, archived: bool = False) -> QuerySet[Dataset]:
    """The datasets (``archived``: the archived ones, else the others) with their numbers of
    items, gold lines, assignments, answers and open flags (training and control pools are
    shown on their dataset's training page)."""
    return _overview(Dataset.objects.filter(pool_of__isnull=True, archived_at__isnull=not archived))


def _overview(datasets: QuerySet[Dataset]) -> QuerySet[Dataset]:
    return datasets.annotate(
        item_count=_count(Item.objects.all()),
        gold_count=_count(GoldAnswer.objects.all(), "item__dataset"),
        assignment_count=_count(Assignment.objects.all()),
        submitted_count=_count(
            Annotation.objects.filter(status=Annotation.Status.SUBMITTED), "item__dataset"
        ),
        open_flag_count=_count(Flag.objects.filter(resolved_at__isnull=True), "item__dataset"),
    ).order_by("name")


def dataset_overview(pk: int) -> Dataset:
    """One dataset (archived or not) with the numbers of ``datasets_overview``."""
    return _overview(Dataset.objects.filter(pool_of__isnull=True)).select_related("archived_by").get(pk=pk)


def model_submissions(dataset: Dataset) -> QuerySet[ModelSubmission]:
    """The models' submissions uploaded for the dataset's report, by name (their files unread)."""
    return ModelSubmission.objects.filter(dataset=dataset).order_by("name").only("id", "name", "filename", "uploaded_at")


def archived_count() -> int:
    return Dataset.objects.filter(pool_of__isnull=True, archived_at__isnull=False).count()


def gold_additions(dataset: Dataset) -> list[dict]:
    """When the dataset's gold was added, oldest first: ``added_at`` and ``count`` (one row per
    gold import; a partial gold file's missing lines come later)."""
    return list(GoldAnswer.objects.filter(item__dataset=dataset).order_by("added_at").values("added_at")
                .annotate(count=Count("pk")))


def datasets_by_name() -> QuerySet[Dataset]:
    """Every dataset not archived, training and control pools among them, by name (the API's
    list for organizers; the archived ones are left out as the dashboard and the annotators'
    list leave them)."""
    return Dataset.objects.filter(archived_at__isnull=True).order_by("name")


def items_in_order(dataset_id: int) -> QuerySet[Item]:
    """Every item of the dataset in input order, withdrawn ones among them, ``position`` None
    (the API's item list for organizers: only the fields it shows)."""
    return (
        Item.objects.filter(dataset_id=dataset_id)
        .annotate(position=Value(None, IntegerField()))
        .order_by("ordinal")
        .only("id", "external_id", "payload", "withdrawn_at")
    )


def annotator_progress(dataset: Dataset) -> list[AnnotatorProgress]:
    """Per annotator of the dataset: submitted / assigned and median active time per item,
    counted as the annotators' own progress counts them: every position of their queue,
    control items among them, withdrawn items left out."""
    assigned = (
        Assignment.objects.filter(dataset=dataset, item__withdrawn_at__isnull=True)
        .order_by()
        .values("annotator_id", "annotator__username")
        .annotate(n=Count("pk"))
    )
    active_times: dict[int, list[int]] = defaultdict(list)
    # Answers to the items assigned to their author in the dataset: a control item is of the
    # control pool, assigned here.
    for annotator_id, active_ms in Annotation.objects.filter(
        item__assignments__dataset=dataset,
        item__assignments__annotator=F("annotator"),
        item__withdrawn_at__isnull=True,
        status=Annotation.Status.SUBMITTED,
    ).values_list("annotator_id", "active_ms"):
        active_times[annotator_id].append(active_ms)
    rows = [
        AnnotatorProgress(
            user_id=row["annotator_id"],
            username=row["annotator__username"],
            assigned=row["n"],
            submitted=len(active_times[row["annotator_id"]]),
            median_active_ms=statistics.median(active_times[row["annotator_id"]])
            if active_times[row["annotator_id"]]
            else None,
        )
        for row in assigned
    ]
    return sorted(rows, key=lambda row: row.username)


def dataset_flags(dataset: Dataset) -> QuerySet[Flag]:
    """The dataset's flags, open ones first, each with its item and the people involved."""
    return (
        Flag.objects.filter(item__dataset=dataset)
        .select_related("item", "raised_by", "resolved_by")
        .order_by(F("resolved_at").asc(nulls_first=True), "-created_at")
    )


def dataset_flag(pk: int) -> Flag:
    """One flag as its row on the dataset page shows it, with its item and the people involved."""
    return Flag.objects.select_related("item", "raised_by", "resolved_by").get(pk=pk)


def open_flag_count(dataset: Dataset) -> int:
    """How many of the dataset's flags are not resolved yet."""
    return Flag.objects.filter(item__dataset=dataset, resolved_at__isnull=True).count()


def withdrawn_items(dataset: Dataset) -> QuerySet[Item]:
    """The dataset's withdrawn items, with who withdrew them and why."""
    return (
        Item.objects.filter(dataset=dataset, withdrawn_at__isnull=False)
        .select_related("withdrawn_by")
        .order_by("ordinal")
    )
