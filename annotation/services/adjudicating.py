"""An adjudicator's writes: claiming an item and settling it.

One service for the adjudication page and the API, so both check, version and record
decisions alike.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.errors import ClaimedByOther, NotAdjudicatorHere, Refused, StaleDecision
from annotation.models import (
    Adjudication,
    AdjudicationClaim,
    AdjudicationRevision,
    Annotation,
    Assignment,
    Dataset,
    Item,
)
from annotation.roles import ADJUDICATOR, has_role
from annotation.selectors.adjudication import item_case_status
from annotation.services.annotating import answer_refusals
from annotation.services.settling import record_decision
from annotation.storable import unstorable
from scoring.agreement import majority_answer

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
    ``annotation.errors.Refused``. Every decision bumps the version, appends an
    AdjudicationRevision, remembers the versions of the answers it saw (for "stale") and ends
    the adjudicator's claim on the item.
    """
    dataset = item.dataset
    if not may_adjudicate(adjudicator, dataset.pk):
        raise NotAdjudicatorHere
    if unstorable(note):
        raise Refused.because(_("The note holds the character U+0000, which cannot be stored: remove it."))
    with transaction.atomic():
        # The item's row serialises decisions on it (also the first one, which has no row yet).
        locked = Item.objects.select_for_update().get(pk=item.pk)
        if locked.withdrawn_at is not None:
            raise Refused.because(_("This item was withdrawn: it needs no decision."))
        if item_case_status(item.pk)[0] is None:
            raise Refused.because(_("This item is not ready for adjudication: its annotators are still at work."))
        claim = AdjudicationClaim.objects.filter(item=item).first()
        if claim is not None and claim.adjudicator_id != adjudicator.pk and claim.expires_at > timezone.now():
            raise ClaimedByOther
        submitted = list(Annotation.objects.filter(item=item, status=Annotation.Status.SUBMITTED).order_by("pk"))
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
            raise Refused.because(_("That answer is not a submitted answer of this item."))
        final, source_annotation = taken.answer, taken
    elif source == Adjudication.Source.MAJORITY:
        final, _reason = majority_answer(dataset.subtask, [a.answer for a in submitted], item.payload)
        if final is None:
            raise Refused.because(_("This item has no majority answer."))
        source_annotation = None
    elif source == Adjudication.Source.EDITED:
        final, source_annotation = answer, None
    else:
        raise Refused.because(_("Choose an answer, the majority or your own edited answer."))
    refusals = answer_refusals(dataset.subtask, final, item.payload)
    if refusals:
        raise Refused(refusals)
    return final, source_annotation
