"""Organizer actions on a running dataset: flags (and withdrawing a broken item), freezing
answers, and the adjudication settings."""

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.adjudicate.services import settle_dataset_by_majority
from annotation.models import Dataset, Flag, Item


def resolve_flag(flag: Flag, organizer: User, note: str, withdraw: bool = False) -> Flag:
    """Mark a flag resolved with the organizer's note; resolving again updates the note.
    ``withdraw``: the item is broken and is withdrawn (withdraw_item) with the note as the reason."""
    with transaction.atomic():
        flag = Flag.objects.select_for_update().get(pk=flag.pk)
        flag.resolved_at = flag.resolved_at or timezone.now()
        flag.resolved_by = organizer
        flag.resolution_note = note.strip()
        flag.save(update_fields=["resolved_at", "resolved_by", "resolution_note"])
        if withdraw:
            withdraw_item(flag.item, organizer, flag.resolution_note)
    return flag


def withdraw_item(item: Item, organizer: User, reason: str) -> Item:
    """Take a broken item out of every queue, agreement, majority, adjudication, export and
    report (each lists it as withdrawn); withdrawing it again keeps the first record."""
    Item.objects.filter(pk=item.pk, withdrawn_at__isnull=True).update(
        withdrawn_at=timezone.now(), withdrawn_by=organizer, withdrawal_reason=reason.strip()
    )
    item.refresh_from_db(fields=["withdrawn_at", "withdrawn_by", "withdrawal_reason"])
    return item


def set_frozen(dataset: Dataset, frozen: bool) -> Dataset:
    """Frozen datasets take no more edits to answers (the annotation service checks this);
    their answered items go to adjudication even where an annotator has not answered."""
    Dataset.objects.filter(pk=dataset.pk).update(frozen=frozen)
    dataset.frozen = frozen
    if frozen:
        settle_dataset_by_majority(dataset)
    return dataset
