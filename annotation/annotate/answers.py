"""An annotator's own answers, for the "My answers" page and the API (/api/annotations/)."""

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import OuterRef, QuerySet, Subquery

from annotation.models import Annotation, Assignment, Dataset


def own_answers(
    annotator: AbstractBaseUser, dataset_id: int | None = None, status: str | None = None, *, newest_first: bool = True
) -> QuerySet[Annotation]:
    """The annotator's answers (drafts and submitted) to items still assigned to them (a draft
    left on an item released to others is not theirs to see or change), the most recently
    saved first (``newest_first=False``: by id, the order they were first saved in, which a
    new save does not change: the API's pages), each with the dataset it was assigned in
    (``assigned_dataset_id``, ``assigned_dataset_name``, ``assigned_dataset_frozen``: a
    control item's own dataset is the control pool, never shown) and its `position` there to
    reopen it; optionally one dataset (of the assignment), one status."""
    assignment = Assignment.objects.filter(item=OuterRef("item"), annotator=annotator)
    answers = Annotation.objects.filter(annotator=annotator)
    if status is not None:
        answers = answers.filter(status=status)
    answers = (
        answers.select_related("item__dataset")
        .annotate(
            position=Subquery(assignment.values("position")[:1]),
            assigned_dataset_id=Subquery(assignment.values("dataset_id")[:1]),
            assigned_dataset_name=Subquery(assignment.values("dataset__name")[:1]),
            assigned_dataset_frozen=Subquery(assignment.values("dataset__frozen")[:1]),
        )
        .filter(position__isnull=False)
    )
    if dataset_id is not None:
        answers = answers.filter(assigned_dataset_id=dataset_id)
    return answers.order_by("-updated_at", "-pk") if newest_first else answers.order_by("pk")


def datasets_answered(annotator: AbstractBaseUser) -> QuerySet[Dataset]:
    """The datasets the annotator has answered anything in, by name (the page's filter)."""
    answered = Assignment.objects.filter(annotator=annotator, item__annotations__annotator=annotator)
    return Dataset.objects.filter(pk__in=answered.values("dataset_id")).order_by("name")
