"""An annotator's own answers, for the "My answers" page."""

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import OuterRef, QuerySet, Subquery

from annotation.models import Annotation, Assignment, Dataset


def own_answers(annotator: AbstractBaseUser, dataset_id: int | None = None, status: str | None = None) -> QuerySet[Annotation]:
    """The annotator's answers (drafts and submitted) to items still assigned to them, the most
    recently saved first, each with its `position` to reopen it; optionally one dataset, one status."""
    answers = Annotation.objects.filter(annotator=annotator)
    if dataset_id is not None:
        answers = answers.filter(item__dataset_id=dataset_id)
    if status is not None:
        answers = answers.filter(status=status)
    return (
        answers.select_related("item__dataset")
        .annotate(
            position=Subquery(
                Assignment.objects.filter(item=OuterRef("item"), annotator=annotator).values("position")[:1]
            )
        )
        .filter(position__isnull=False)
        .order_by("-updated_at", "-pk")
    )


def datasets_answered(annotator: AbstractBaseUser) -> QuerySet[Dataset]:
    """The datasets the annotator has answered anything in, by name (the page's filter)."""
    return Dataset.objects.filter(items__annotations__annotator=annotator).distinct().order_by("name")
