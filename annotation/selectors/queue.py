"""What an annotator sees of their own work: queues, progress, items, answers.

The queue order: assignments by position, then the skipped ones in the order they were
skipped. Every function runs a fixed number of queries, whatever the size of the dataset.
"""

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Exists, Func, IntegerField, JSONField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from annotation.models import Annotation, Assignment, Dataset
from annotation.subtask_titles import SUBTASK_TITLES


def _submitted_answer() -> Exists:
    """For a queryset of assignments: whether the assignment's item has a submitted answer."""
    return Exists(
        Annotation.objects.filter(
            item=OuterRef("item"), annotator=OuterRef("annotator"), status=Annotation.Status.SUBMITTED
        )
    )


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
        return SUBTASK_TITLES[self.dataset.subtask]


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


def next_unanswered(annotator: AbstractBaseUser, dataset: Dataset | int, after_position: int = 0) -> Assignment | None:
    """The first assignment without a submitted answer in queue order, looking first at the
    ones after ``after_position`` (so save & next moves forward), then from the start, then
    at the skipped ones, oldest skip first."""
    unanswered = queue(annotator, dataset).exclude(_submitted_answer())
    fresh = unanswered.filter(skipped_at__isnull=True).order_by("position")
    return (
        fresh.filter(position__gt=after_position).first()
        or (fresh.first() if after_position else None)
        or unanswered.filter(skipped_at__isnull=False).order_by("skipped_at", "position").first()
    )


def assignment_at(annotator: AbstractBaseUser, dataset_id: int, position: int) -> Assignment | None:
    """The annotator's assignment at ``position`` of their order, with its item and dataset."""
    return queue(annotator, dataset_id).filter(position=position).select_related("item", "dataset").first()


def assignment_for_page(annotator: AbstractBaseUser, dataset_id: int, position: int) -> Assignment | None:
    """``assignment_at`` with all the item page shows around it, in the same query:
    ``assigned_count``, ``submitted_count``, ``previous_position`` (the position before it in
    the order, None at the first) and the stored answer as ``answer``, ``answer_version`` (0:
    none yet) and ``answer_status`` (None: none yet)."""
    own_queue = _assigned(OuterRef("annotator_id"), OuterRef("dataset_id"))
    stored = Annotation.objects.filter(item_id=OuterRef("item_id"), annotator_id=OuterRef("annotator_id"))
    return (
        queue(annotator, dataset_id)
        .filter(position=position)
        .select_related("item", "dataset")
        .annotate(
            assigned_count=_count(own_queue),
            submitted_count=_count(_submitted(OuterRef("annotator_id"), OuterRef("dataset_id"))),
            previous_position=Subquery(
                own_queue.filter(position__lt=OuterRef("position")).order_by("-position").values("position")[:1]
            ),
            answer=Subquery(stored.values("answer"), output_field=JSONField()),
            answer_version=Coalesce(Subquery(stored.values("version")), 0),
            answer_status=Subquery(stored.values("status")),
        )
        .first()
    )


def submitted_answers(annotator: AbstractBaseUser) -> QuerySet[Annotation]:
    """The annotator's submitted answers, newest first, each with its position to reopen it."""
    return (
        Annotation.objects.filter(annotator=annotator, status=Annotation.Status.SUBMITTED)
        .select_related("item__dataset")
        .annotate(
            position=Subquery(
                Assignment.objects.filter(item=OuterRef("item"), annotator=annotator).values("position")[:1]
            )
        )
        .filter(position__isnull=False)
        .order_by("-submitted_at", "-pk")
    )
