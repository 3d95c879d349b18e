"""A study worked by hand for the organizer's tests: participants with known entry and
completion times and known control answers, set directly."""

from datetime import datetime, timedelta
from datetime import timezone as tz

from annotation.datasets.assigning import join
from annotation.models import Annotation, Assignment, Dataset, GoldAnswer, Item, StudyParticipant
from tests.factories import make_user
from tests.studies.panel import ANSWER, make_study, panel_id, routed_dataset

ENTERED = datetime(2026, 5, 4, 10, 0, tzinfo=tz.utc)
WRONG = {"commas": [2], "optional": []}


def control_pool(dataset: Dataset, ids: list[str]) -> list[Item]:
    """A control pool of commas items serving ``dataset``, each with the gold ANSWER."""
    pool = Dataset.objects.create(name=f"{dataset.name}-control", subtask="commas", source_filename="control.jsonl",
                                  source_sha256="0" * 64, pool_of=dataset, pool_kind=Dataset.PoolKind.CONTROL)
    items = [Item.objects.create(dataset=pool, external_id=item_id, ordinal=ordinal,
                                 payload={"id": item_id, "sentence_with_positions": "Ala [1] ma [2] psa."})
             for ordinal, item_id in enumerate(ids)]
    for item in items:
        GoldAnswer.objects.create(item=item, payload={"id": item.external_id, **ANSWER})
    return items


def participant(study, number: int, minutes: int | None, *, test: bool = False, unreconciled: bool = False,
                screened_out: bool = False) -> StudyParticipant:
    """Participant ``number`` (panel id ``panel_id(number)``), entered at ENTERED and completed
    ``minutes`` later (None: not completed)."""
    user = make_user("annotator", username=f"study-p{number}")
    for step in study.steps.all():
        join(step.dataset, [user])
    return StudyParticipant.objects.create(
        study=study, user=user, panel_id=None if test else panel_id(number), panel_session=f"s{number}", test=test,
        entered_at=ENTERED, deadline=ENTERED + timedelta(days=365 * 100),
        completed_at=None if minutes is None else ENTERED + timedelta(minutes=minutes),
        screened_out_at=ENTERED + timedelta(minutes=5) if screened_out else None,
        unreconciled_at=ENTERED if unreconciled else None,
    )


def answer(user, item: Item, dataset: Dataset, answer: dict, active_ms: int = 60_000) -> None:
    """A submitted answer of ``user`` to ``item`` (a control item: assigned to them in ``dataset``)."""
    if item.dataset_id != dataset.pk:
        position = Assignment.objects.filter(dataset=dataset, annotator=user).count() + 1
        Assignment.objects.create(dataset=dataset, item=item, annotator=user, position=position)
    Annotation.objects.create(item=item, annotator=user, answer=answer, status=Annotation.Status.SUBMITTED,
                              submitted_at=ENTERED + timedelta(minutes=1), active_ms=active_ms)


def worked_study(**fields):
    """The case worked by hand (docs in tests/studies/test_organizer_figures.py): three completed
    participants of 15, 30 and 20 minutes, one at work, a test entry and one the panel's export
    left out; control items k1, k2, k3 (k3 an attention check)."""
    dataset = routed_dataset(6, 2)
    k1, k2, k3 = control_pool(dataset, ["k1", "k2", "k3"])
    settings = {"minimum_hourly_rate": "9.00", "attention_items": "k3\n", "attention_failures": 1, **fields}
    study = make_study((dataset, 3), **settings)
    first, second, third = (participant(study, n, minutes) for n, minutes in ((1, 15), (2, 30), (3, 20)))
    participant(study, 4, None)
    tester = participant(study, 5, 10, test=True)
    left_out = participant(study, 6, 10, unreconciled=True)
    items = list(dataset.items.order_by("ordinal"))
    answer(first.user, items[0], dataset, ANSWER)
    answer(first.user, items[1], dataset, ANSWER)
    for user, item, given in ((first.user, k1, ANSWER), (first.user, k2, ANSWER), (first.user, k3, WRONG),
                              (second.user, k1, ANSWER), (tester.user, k1, ANSWER), (left_out.user, k1, ANSWER),
                              (left_out.user, k3, WRONG)):
        answer(user, item, dataset, given)
    study.refresh_from_db()
    return study
