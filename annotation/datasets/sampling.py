"""A dataset's seeded sample: which of its items annotators are given.

The draw is the scorer's (scoring.sampling.draw_sample, `python -m scoring sample`) over the
dataset's input records, so anyone can redraw it from the inputs file, the size, the seed and
the field. The sample is set before any item is assigned: once annotators hold items, changing
which items exist for them would take work away from someone.
"""

from django.db import transaction
from django.db.models import Q, QuerySet

from annotation.core.errors import Refused
from annotation.models import Assignment, Dataset, Item
from scoring.sampling import Sample, SampleTooLarge, draw_sample


def served_items(dataset: Dataset) -> QuerySet[Item]:
    """The items annotators of ``dataset`` may be given: its sample, or every item without one."""
    # Read from the row, not from ``dataset``: the caller's copy may predate set_sample.
    return dataset.items.filter(Q(sample_rank__isnull=False) | Q(dataset__sample_size__isnull=True))


def sample_ids(dataset: Dataset) -> list[str]:
    """The ids of the dataset's sample (every item without one), in Python string order."""
    return sorted(served_items(dataset).values_list("external_id", flat=True))


def preview_sample(dataset: Dataset, size: int, seed: int, field: str = "") -> Sample:
    """The sample of ``size`` items drawn with ``seed`` (stratified by ``field``), with its
    allocation per stratum, without changing anything."""
    records = list(dataset.items.order_by("ordinal").values_list("payload", flat=True))
    try:
        return draw_sample(records, size, seed, field or None)
    except SampleTooLarge:
        raise Refused.of("sample_too_large", "size", size=size, dataset=dataset.name, count=len(records)) from None


def set_sample(dataset: Dataset, size: int | None, seed: int | None = None, field: str = "") -> Sample | None:
    """Give ``dataset`` the sample of ``size`` items drawn with ``seed`` (None: every item)."""
    if size is not None and seed is None:
        raise Refused.of("sample_without_seed", "seed")
    with transaction.atomic():
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        # A routed dataset's annotators hold their order of the sample from when they joined.
        if Assignment.objects.filter(item__dataset=dataset).exists() or dataset.routed_annotators.exists():
            raise Refused.of("sample_after_assignment", dataset=dataset.name)
        drawn = None if size is None else preview_sample(dataset, size, seed, field)
        dataset.items.update(sample_rank=None)
        if drawn is not None:
            rank = {item_id: place for place, item_id in enumerate(drawn.order, start=1)}
            members = list(dataset.items.filter(external_id__in=drawn.order).only("id", "external_id"))
            for item in members:
                item.sample_rank = rank[item.external_id]
            Item.objects.bulk_update(members, ["sample_rank"], batch_size=1000)
        dataset.sample_size, dataset.sample_seed = size, seed
        dataset.sample_field = field if size is not None else ""
        dataset.save(update_fields=["sample_size", "sample_seed", "sample_field"])
    return drawn
