"""Demo only: submitted answers of demo raters, made from gold with the slips people make.

Each rater answers most items like the gold and, on some, makes a typical slip of the
subtask (its folder's ``demo_slip``: another label, a missed comma...; by default none). Every
answer passes the checks of a submitted answer (the scorer's and the app's); a slip that would
not is replaced by the gold answer.
The answers are the same on every run (the random generator is seeded by dataset and rater).
"""

import random

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.answers.normalised import normalised_answer
from annotation.answers.refusals import answer_refusals
from annotation.datasets.assigning import assign
from annotation.models import Annotation, AnnotationRevision, Dataset
from annotation.subtasks import part
from scoring.subtasks import get_subtask

SLIP_RATE = 0.2  # share of items on which a rater answers otherwise than the gold


SKIP_RATE = 0.05  # share of items a rater leaves unanswered


def no_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    return answer


def demo_answer(subtask: str, item: dict, gold: dict, rng: random.Random) -> dict:
    answer = get_subtask(subtask).gold_answer_fields(gold)
    if rng.random() < SLIP_RATE:
        slipped = part(subtask, "demo_slip", no_slip)(item, answer, rng)
        if not answer_refusals(subtask, slipped, item):  # what the item page would accept
            return slipped
    return answer


@transaction.atomic
def submit_demo_answers(dataset: Dataset, raters: list[User]) -> int:
    """Assign every item of ``dataset`` to each rater and submit their demo answers to most
    of them; a rater who already has answers in the dataset is left alone. Returns the
    number of answers added."""
    assign(dataset, raters, len(raters))
    items = list(dataset.items.filter(gold__isnull=False).select_related("gold").order_by("ordinal"))
    already = set(Annotation.objects.filter(item__dataset=dataset).values_list("annotator_id", flat=True))
    now = timezone.now()
    annotations = []
    for rater in raters:
        if rater.pk in already:
            continue
        rng = random.Random(f"{dataset.name}:{rater.username}")
        for item in items:
            if rng.random() < SKIP_RATE:
                continue
            answer = demo_answer(dataset.subtask, item.payload, item.gold.payload, rng)
            annotations.append(Annotation(
                item=item,
                annotator=rater,
                answer=answer,
                status=Annotation.Status.SUBMITTED,
                active_ms=rng.randint(4_000, 60_000),
                submitted_at=now,
                normalised_answer=normalised_answer(dataset.subtask, answer),
            ))
    created = Annotation.objects.bulk_create(annotations)
    AnnotationRevision.objects.bulk_create(
        AnnotationRevision(annotation=annotation, version=1, answer=annotation.answer,
                           status=annotation.status, active_ms=annotation.active_ms)
        for annotation in created
    )
    return len(created)
