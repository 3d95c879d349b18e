"""Routing, the organizer's side (writes and reads): a dataset's choice between fixed queues
and routing with its settings, the annotators it serves, and the state of its sample.

With routing, an annotator is given one item at a time (annotation.annotate.routing) instead
of a fixed queue; what is set here is read there. The items are the dataset's sample (every
item without one), each with a load counter (RoutedItem); each annotator who joins gets their
own order of them, drawn once with the seed of their fixed queue's order
(annotation.datasets.assigning.annotator_order), which breaks ties between items of equal load.
The pilot is the first m items of the sample in the order of its permutation (without a
seeded sample: input order).
"""

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q, Sum
from django.utils import timezone

from annotation.core.errors import Refused
from annotation.datasets.assigning import join
from annotation.datasets.sampling import served_items
from annotation.models import Annotation, Assignment, Dataset, Item, RoutedAnnotator, RoutedItem, RoutingOrder

# Fields of set_routing that are fixed once the dataset has an answer.
FIXED_AT_FIRST_ANSWER = ("routing", "answers_per_item", "pilot_size")


def _has_answers(dataset: Dataset) -> bool:
    return Annotation.objects.filter(item__dataset=dataset).exists()


def set_routing(
    dataset: Dataset,
    *,
    routing: bool | None = None,
    answers_per_item: int | None = None,
    reservation_minutes: int | None = None,
    pilot_size: int | None = None,
    pilot_open: bool | None = None,
    quota: int | None | bool = False,
) -> Dataset:
    """Change the dataset's routing settings (None: keep; ``quota`` False: keep, None: no quota).

    Fixed queues or routing, k and the pilot's size are chosen before the first answer; the
    reservation's length, the quota and opening the rest after the pilot may change any time.
    Turning routing on takes back the unanswered fixed assignments (there are no answers yet)
    and makes their annotators the routed dataset's; turning it off takes back the routed
    annotators and their reservations (assign them again for fixed queues)."""
    with transaction.atomic():
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        wanted = {
            "routing": dataset.routing if routing is None else routing,
            "answers_per_item": dataset.answers_per_item if answers_per_item is None else answers_per_item,
            "pilot_size": dataset.pilot_size if pilot_size is None else pilot_size,
        }
        if any(wanted[name] != getattr(dataset, name) for name in FIXED_AT_FIRST_ANSWER) and _has_answers(dataset):
            raise Refused.of("routing_after_answers", dataset=dataset.name)
        for name, value in (("answers_per_item", answers_per_item), ("reservation_minutes", reservation_minutes),
                            ("quota", quota or None)):
            if value is not None and value < 1:
                raise Refused.of("routing_bad_number", name, value=value)
        if wanted["routing"] and not wanted["answers_per_item"]:
            raise Refused.of("routing_without_k", "answers_per_item")
        if not wanted["routing"] and (pilot_size or pilot_open or quota or reservation_minutes):
            raise Refused.of("pilot_without_routing", "routing")
        served = served_items(dataset)
        if wanted["pilot_size"] > served.count():
            raise Refused.of("pilot_too_large", "pilot_size", size=wanted["pilot_size"], count=served.count())
        switched = wanted["routing"] != dataset.routing
        for name, value in wanted.items():
            setattr(dataset, name, value)
        if reservation_minutes is not None:
            dataset.reservation_minutes = reservation_minutes
        if pilot_open is not None:
            dataset.pilot_open = pilot_open
        if quota is not False:
            dataset.quota = quota
        if not dataset.routing:
            dataset.answers_per_item, dataset.pilot_size, dataset.pilot_open, dataset.quota = None, 0, False, None
        dataset.save(update_fields=[*FIXED_AT_FIRST_ANSWER, "reservation_minutes", "pilot_open", "quota"])
        if switched and dataset.routing:
            _start_routing(dataset)
        elif switched:
            _stop_routing(dataset)
        elif dataset.routing:
            _place_pilot(dataset)
    return dataset


def _start_routing(dataset: Dataset) -> None:
    assigned = list(User.objects.filter(assignments__dataset=dataset).distinct().order_by("username"))
    Assignment.objects.filter(dataset=dataset).delete()
    RoutedItem.objects.bulk_create(
        [RoutedItem(item_id=item_id, dataset=dataset) for item_id in served_items(dataset).values_list("id", flat=True)],
        batch_size=2000,
    )
    _place_pilot(dataset)
    if assigned:
        join(dataset, assigned)


def _stop_routing(dataset: Dataset) -> None:
    Assignment.objects.filter(dataset=dataset).delete()
    RoutingOrder.objects.filter(dataset=dataset).delete()
    RoutedAnnotator.objects.filter(dataset=dataset).delete()
    RoutedItem.objects.filter(dataset=dataset).delete()


def pilot_order(dataset: Dataset) -> list[int]:
    """The routed items' ids in the order the pilot takes them: the sample's permutation (input order without one)."""
    return list(served_items(dataset).order_by("sample_rank", "ordinal").values_list("id", flat=True))


def _place_pilot(dataset: Dataset) -> None:
    routed = RoutedItem.objects.filter(dataset=dataset)
    routed.filter(pilot_rank__isnull=False).update(pilot_rank=None)
    rows = [RoutedItem(item_id=item_id, dataset=dataset, pilot_rank=rank)
            for rank, item_id in enumerate(pilot_order(dataset)[: dataset.pilot_size], start=1)]
    RoutedItem.objects.bulk_update(rows, ["pilot_rank"], batch_size=1000)


@dataclass(frozen=True)
class AnnotatorQuota:
    username: str
    served: int  # positions given (control items among them)
    submitted: int
    quota: int | None


@dataclass(frozen=True)
class RoutingState:
    """The sample's state under routing, for the organizer's page and the API."""

    answers_per_item: int
    by_answers: list[tuple[int, int]]  # (submitted answers 0..k, items with that many; k: k or more)
    reserved_items: int  # items with an open reservation
    late_answers: int  # answers submitted after their reservation expired
    late_items: int  # items with such an answer
    pilot_items: int
    pilot_open: bool
    annotators: list[AnnotatorQuota]

    def as_json(self) -> dict:
        return {
            "answers_per_item": self.answers_per_item,
            "items_by_answers": {str(answers): count for answers, count in self.by_answers},
            "reserved_items": self.reserved_items,
            "late_answers": self.late_answers,
            "late_items": self.late_items,
            "pilot_items": self.pilot_items,
            "pilot_open": self.pilot_open,
            "annotators": [vars(annotator) for annotator in self.annotators],
        }


def routing_state(dataset: Dataset, now) -> RoutingState | None:
    """The state of a routed dataset's sample (None: fixed queues), in four queries."""
    if not dataset.routing:
        return None
    k = dataset.answers_per_item
    routed = RoutedItem.objects.filter(dataset=dataset, item__withdrawn_at__isnull=True)
    counts = dict(routed.values_list("submitted").annotate(n=Count("pk")).order_by())
    by_answers = [(answers, counts.get(answers, 0)) for answers in range(k)]
    by_answers.append((k, sum(n for answers, n in counts.items() if answers >= k)))
    totals = routed.aggregate(late_answers=Sum("late"), late_items=Count("pk", filter=Q(late__gt=0)))
    reserved = Item.objects.filter(
        Exists(Assignment.objects.filter(item=OuterRef("pk"), reserved_until__gt=now)), routing__dataset=dataset
    ).count()
    submitted = Annotation.objects.filter(
        annotator=OuterRef("annotator"), item__assignments__dataset=dataset, item__assignments__annotator=OuterRef("annotator"),
        status=Annotation.Status.SUBMITTED,
    ).order_by().values("annotator").annotate(n=Count("pk")).values("n")
    members = (dataset.routed_annotators.select_related("annotator").order_by("annotator__username")
               .annotate(answered=submitted[:1]))
    return RoutingState(
        answers_per_item=k,
        by_answers=by_answers,
        reserved_items=reserved,
        late_answers=totals["late_answers"] or 0,
        late_items=totals["late_items"],
        pilot_items=dataset.pilot_size,
        pilot_open=dataset.pilot_open,
        annotators=[AnnotatorQuota(member.annotator.get_username(), member.served, member.answered or 0, dataset.quota)
                    for member in members],
    )


def routing_description(dataset: Dataset) -> dict:
    """The dataset's routing settings and its sample's state (``state``: None for fixed
    queues): the API's GET and ``manage.py routing --json``."""
    state = routing_state(dataset, timezone.now())
    return {
        "routing": dataset.routing, "answers_per_item": dataset.answers_per_item,
        "reservation_minutes": dataset.reservation_minutes, "pilot_size": dataset.pilot_size,
        "pilot_open": dataset.pilot_open, "quota": dataset.quota, "state": state.as_json() if state else None,
    }
