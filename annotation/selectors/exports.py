"""What each export source of a dataset holds, for the export page: a fixed number of queries
whatever the dataset's size and its number of annotators."""

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef

from annotation.errors import Refused
from annotation.models import Annotation, Assignment, Dataset
from annotation.services.exporting import FORMATS, majority_export
from scoring.problems import Problem


@dataclass(frozen=True)
class SourceSummary:
    source: str
    n_records: int
    n_left_out: int
    formats: tuple[str, ...] = ("jsonl",)
    problems: list[Problem] = field(default_factory=list)  # why it cannot be exported


def export_summaries(dataset: Dataset) -> list[SourceSummary]:
    """Every source: each annotator (by username), then majority, then all."""
    submitted = dict(
        Annotation.objects.filter(item__dataset=dataset, status=Annotation.Status.SUBMITTED)
        .order_by().values("annotator__username").annotate(n=Count("pk")).values_list("annotator__username", "n")
    )
    answered = Annotation.objects.filter(item=OuterRef("item"), annotator=OuterRef("annotator"),
                                         status=Annotation.Status.SUBMITTED)
    unanswered = dict(
        Assignment.objects.filter(dataset=dataset).order_by().values("annotator__username")
        .annotate(n=Count("pk", filter=~Exists(answered))).values_list("annotator__username", "n")
    )
    summaries = [
        SourceSummary(f"annotator:{username}", submitted.get(username, 0), unanswered.get(username, 0))
        for username in sorted(submitted.keys() | unanswered.keys())
    ]
    try:
        majority = majority_export(dataset)
        summaries.append(SourceSummary("majority", majority.n_records, len(majority.left_out)))
    except Refused as refused:
        summaries.append(SourceSummary("majority", 0, 0, problems=refused.problems))
    summaries.append(SourceSummary("all", sum(submitted.values()), 0, FORMATS))
    return summaries
