"""Where decisions are written, and the automatic settling of disagreements by their majority.

Apart from the adjudicator's service (adjudicating.py) because the annotators' save service
calls it after a submit, and the adjudicator's service checks answers with that one.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Adjudication, AdjudicationRevision, Annotation, Dataset, Item
from scoring.agreement import majority_answer
from annotation.selectors.adjudication import OPEN, STALE, item_case_status, open_disagreements


def record_decision(
    item: Item,
    adjudication: Adjudication | None,
    answer: dict,
    source: str,
    source_annotation: Annotation | None,
    adjudicator: User | None,
    note: str,
    submitted: list[Annotation],
) -> Adjudication:
    """Write the decision (a new Adjudication or its next version) and its revision."""
    now = timezone.now()
    fields = {
        "answer": answer,
        "source": source,
        "source_annotation": source_annotation,
        "adjudicator": adjudicator,
        "note": note,
        "seen_versions": {str(a.pk): a.version for a in submitted},
    }
    if adjudication is None:
        adjudication = Adjudication.objects.create(item=item, version=1, decided_at=now, **fields)
    else:
        for name, value in fields.items():
            setattr(adjudication, name, value)
        adjudication.version += 1
        adjudication.decided_at = now
        adjudication.save()
    AdjudicationRevision.objects.create(adjudication=adjudication, version=adjudication.version, **fields)
    return adjudication


def settle_by_majority(item_id: int) -> Adjudication | None:
    """Where the dataset settles majorities automatically: write the majority answer of a
    ready disagreement with a majority (source ``majority``, no adjudicator), unless an
    adjudicator's decision on it still holds. Returns the new decision, if any."""
    item = Item.objects.select_related("dataset").get(pk=item_id)
    dataset = item.dataset
    if not dataset.auto_majority:
        return None
    status, disagreement, _flagged = item_case_status(item.pk)
    if status not in (OPEN, STALE) or not disagreement:
        return None
    with transaction.atomic():
        Item.objects.select_for_update().filter(pk=item.pk).first()
        adjudication = Adjudication.objects.filter(item=item).first()
        if adjudication is not None and adjudication.adjudicator_id is not None and status != STALE:
            return None
        submitted = list(Annotation.objects.filter(item=item, status=Annotation.Status.SUBMITTED).order_by("pk"))
        majority, _reason = majority_answer(dataset.subtask, [a.answer for a in submitted], item.payload)
        if majority is None:
            return None
        return record_decision(item, adjudication, majority, Adjudication.Source.MAJORITY, None, None, "", submitted)


def settle_dataset_by_majority(dataset: Dataset) -> int:
    """settle_by_majority for every open or stale disagreement of the dataset; how many it settled."""
    count = 0
    for item_id in open_disagreements(dataset.pk):
        count += settle_by_majority(item_id) is not None
    return count
