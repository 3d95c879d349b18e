"""The adjudicator's writes: claiming an item and settling it; where every decision is
written; and the automatic settling of disagreements by their majority, which the annotators'
save service calls after a submit (so the annotate concern sits above this one)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.adjudicate.selectors import OPEN, STALE, item_case_status, open_disagreements
from annotation.answers.counted import counted_answers
from annotation.answers.refusals import answer_refusals
from annotation.core.errors import ClaimedByOther, NotAdjudicatorHere, Refused, StaleDecision
from annotation.core.roles import ADJUDICATOR, has_role
from annotation.core.storable import unstorable
from annotation.models import Adjudication, AdjudicationClaim, AdjudicationRevision, Annotation, Assignment, Dataset, Item
from scoring.agreement import majority_answer


def set_adjudication_settings(
    dataset: Dataset, *, auto_majority: bool, adjudicators_see_names: bool, gold_revealed: bool,
    adjudicators_audit_gold: bool = False,
) -> Dataset:
    """How the dataset is adjudicated: whether a majority answer settles a disagreement
    without an adjudicator (turning it on settles the open ones at once), whether
    adjudicators see annotators' names, whether they see the gold, and whether (once they see
    it) they decide in the gold audit."""
    Dataset.objects.filter(pk=dataset.pk).update(
        auto_majority=auto_majority, adjudicators_see_names=adjudicators_see_names, gold_revealed=gold_revealed,
        adjudicators_audit_gold=adjudicators_audit_gold,
    )
    dataset.auto_majority = auto_majority
    dataset.adjudicators_see_names = adjudicators_see_names
    dataset.gold_revealed = gold_revealed
    dataset.adjudicators_audit_gold = adjudicators_audit_gold
    if auto_majority:
        settle_dataset_by_majority(dataset)
    return dataset


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
        submitted = list(counted_answers(Annotation.objects.filter(item=item)).order_by("pk"))
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


CLAIM_TIME = timedelta(minutes=15)


def may_adjudicate(user: User, dataset_id: int) -> bool:
    """Adjudicators, except in a dataset where they are assigned items."""
    return has_role(user, ADJUDICATOR) and not Assignment.objects.filter(dataset_id=dataset_id, annotator=user).exists()


def claim_item(*, item: Item, adjudicator: User) -> bool:
    """Claim ``item`` for ``adjudicator`` for the next 15 minutes (renewing their own claim).
    False: another adjudicator holds it."""
    now = timezone.now()
    try:
        with transaction.atomic():
            claim = AdjudicationClaim.objects.select_for_update().filter(item=item).first()
            if claim is None:
                AdjudicationClaim.objects.create(item=item, adjudicator=adjudicator, expires_at=now + CLAIM_TIME)
                return True
            if claim.adjudicator_id != adjudicator.pk and claim.expires_at > now:
                return False
            claim.adjudicator = adjudicator
            claim.expires_at = now + CLAIM_TIME
            claim.save(update_fields=["adjudicator", "expires_at"])
            return True
    except IntegrityError:  # another adjudicator's first claim came in between
        return False


def release_claim(*, item: Item, adjudicator: User) -> None:
    AdjudicationClaim.objects.filter(item=item, adjudicator=adjudicator).delete()


def save_decision(
    *,
    item: Item,
    adjudicator: User,
    source: str,
    based_on_version: int,
    annotation_id: int | None = None,
    answer: object = None,
    note: str = "",
) -> Adjudication:
    """Settle ``item`` for ``adjudicator`` and return the stored Adjudication.

    ``source``: ``"annotation"`` takes the submitted answer ``annotation_id`` of the item;
    ``"majority"`` takes the item's majority answer; ``"edited"`` takes ``answer`` (answer
    fields). The final answer passes the same checks as an annotator's submitted answer.
    ``based_on_version`` is the adjudication version the adjudicator saw (0: none yet); a
    decision on an older version is refused (StaleDecision, nothing written), as is one on an
    item another adjudicator holds (ClaimedByOther), on a withdrawn or not yet ready item
    (Refused), or by a user who annotates in the dataset (NotAdjudicatorHere); refusals are
    ``annotation.core.errors.Refused``. Every decision bumps the version, appends an
    AdjudicationRevision, remembers the versions of the answers it saw (for "stale") and ends
    the adjudicator's claim on the item.
    """
    dataset = item.dataset
    if not may_adjudicate(adjudicator, dataset.pk):
        raise NotAdjudicatorHere
    if unstorable(note):
        raise Refused.of("unstorable/note")
    with transaction.atomic():
        # The item's row serialises decisions on it (also the first one, which has no row yet).
        locked = Item.objects.select_for_update().get(pk=item.pk)
        if locked.withdrawn_at is not None:
            raise Refused.of("item_withdrawn/decision")
        if item_case_status(item.pk)[0] is None:
            raise Refused.of("not_ready")
        claim = AdjudicationClaim.objects.filter(item=item).first()
        if claim is not None and claim.adjudicator_id != adjudicator.pk and claim.expires_at > timezone.now():
            raise ClaimedByOther
        submitted = list(counted_answers(Annotation.objects.filter(item=item)).order_by("pk"))
        final, source_annotation = _final_answer(dataset, item, submitted, source, annotation_id, answer)
        adjudication = Adjudication.objects.filter(item=item).first()
        if adjudication is not None and adjudication.version != based_on_version:
            raise StaleDecision(adjudication)
        adjudication = record_decision(
            item, adjudication, final, source, source_annotation, adjudicator, note.strip(), submitted
        )
        AdjudicationClaim.objects.filter(item=item).delete()
    return adjudication


def _final_answer(
    dataset: Dataset, item: Item, submitted: list[Annotation], source: str, annotation_id, answer
) -> tuple[dict, Annotation | None]:
    if source == Adjudication.Source.ANNOTATION:
        taken = next((a for a in submitted if a.pk == annotation_id), None)
        if taken is None:
            raise Refused.of("not_submitted_answer")
        final, source_annotation = taken.answer, taken
    elif source == Adjudication.Source.MAJORITY:
        final, _reason = majority_answer(dataset.subtask, [a.answer for a in submitted], item.payload)
        if final is None:
            raise Refused.of("no_majority")
        source_annotation = None
    elif source == Adjudication.Source.EDITED:
        final, source_annotation = answer, None
    else:
        raise Refused.of("decision_source")
    refusals = answer_refusals(dataset.subtask, final, item.payload)
    if refusals:
        raise Refused(refusals)
    return final, source_annotation
