"""What each export source of a dataset holds, for the export page: a fixed number of queries
whatever the dataset's size and its number of annotators."""

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef

from annotation.answers.counted import counted_answers, counted_people
from annotation.core.errors import Refused
from annotation.core.snapshot import one_snapshot
from annotation.models import Annotation, Assignment, Dataset
from annotation.results.agreement import counted_items
from annotation.results.exporting import FORMATS, DatasetReads, adjudicated_export, dawid_skene_export, majority_export
from scoring.problems import Problem


@dataclass(frozen=True)
class SourceSummary:
    source: str
    n_records: int
    n_left_out: int
    formats: tuple[str, ...] = ("jsonl",)
    problems: list[Problem] = field(default_factory=list)  # why it cannot be exported
    fill: str = ""  # majority filled from this source ("adjudicated")
    complete: bool = True  # nothing left out but withdrawn items


@one_snapshot()
def export_summaries(dataset: Dataset) -> list[SourceSummary]:
    """Every source: each annotator (by username), then majority, majority filled from
    adjudicated, Dawid–Skene (for a subtask without it, the row says why), adjudicated, then all."""
    submitted = dict(
        counted_answers(Annotation.objects.filter(item__in=counted_items(dataset)))
        .order_by().values("annotator__username").annotate(n=Count("pk")).values_list("annotator__username", "n")
    )
    answered = Annotation.objects.filter(item=OuterRef("item"), annotator=OuterRef("annotator"),
                                         status=Annotation.Status.SUBMITTED)
    unanswered = dict(
        # Control items (the control pool's) are no item of the dataset: never counted as left out.
        counted_people(Assignment.objects.filter(dataset=dataset, item__dataset=dataset)).order_by().values("annotator__username")
        .annotate(n=Count("pk", filter=~Exists(answered))).values_list("annotator__username", "n")
    )
    summaries = [
        SourceSummary(f"annotator:{username}", submitted.get(username, 0), unanswered.get(username, 0),
                      complete=not unanswered.get(username, 0))
        for username in sorted(submitted.keys() | unanswered.keys())
    ]
    reads = DatasetReads(dataset)
    try:
        # One build gives both majority rows: the filled items are the unfilled export's left-out ones.
        filled = majority_export(reads, "adjudicated")
        n_filled = len(filled.filled)
        summaries.append(SourceSummary("majority", filled.n_records - n_filled, len(filled.left_out) + n_filled,
                                       complete=filled.complete and not n_filled))
        summaries.append(SourceSummary("majority", filled.n_records, len(filled.left_out), fill="adjudicated",
                                       complete=filled.complete))
    except Refused as refused:
        summaries.append(SourceSummary("majority", 0, 0, problems=refused.problems, complete=False))
    try:
        dawid_skene = dawid_skene_export(reads)
        summaries.append(SourceSummary("dawid-skene", dawid_skene.n_records, len(dawid_skene.left_out),
                                       complete=dawid_skene.complete))
    except Refused as refused:
        summaries.append(SourceSummary("dawid-skene", 0, 0, problems=refused.problems, complete=False))
    try:
        adjudicated = adjudicated_export(reads)
        summaries.append(SourceSummary("adjudicated", adjudicated.n_records, len(adjudicated.left_out),
                                       complete=adjudicated.complete))
    except Refused as refused:
        summaries.append(SourceSummary("adjudicated", 0, 0, problems=refused.problems, complete=False))
    withdrawn = len(reads.withdrawn)
    summaries.append(SourceSummary("all", sum(submitted.values()), withdrawn, FORMATS))
    return summaries
