"""Organizer actions on a running dataset: resolving flags, freezing answers."""

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Dataset, Flag


def resolve_flag(flag: Flag, organizer: User, note: str) -> Flag:
    """Mark a flag resolved with the organizer's note; resolving again updates the note."""
    with transaction.atomic():
        flag = Flag.objects.select_for_update().get(pk=flag.pk)
        flag.resolved_at = flag.resolved_at or timezone.now()
        flag.resolved_by = organizer
        flag.resolution_note = note.strip()
        flag.save(update_fields=["resolved_at", "resolved_by", "resolution_note"])
    return flag


def set_frozen(dataset: Dataset, frozen: bool) -> Dataset:
    """Frozen datasets take no more edits to answers (the annotation service checks this)."""
    Dataset.objects.filter(pk=dataset.pk).update(frozen=frozen)
    dataset.frozen = frozen
    return dataset
