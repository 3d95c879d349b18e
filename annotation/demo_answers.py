"""Demo only: submitted answers of demo raters, made from gold with the slips people make.

Each rater answers most items like the gold and, on some, makes a typical slip of the
subtask (another label, a missed or an extra comma, another relation or a head one level up,
another case of a numeral, a missed or a different correction). Every answer passes the
checks of a submitted answer (the scorer's and the app's); a slip that would not is replaced
by the gold answer.
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
from scoring.subtasks import get_subtask
from scoring.subtasks.commas import markers
from scoring.subtasks.discourse import RELATIONS

SLIP_RATE = 0.2  # share of items on which a rater answers otherwise than the gold


SKIP_RATE = 0.05  # share of items a rater leaves unanswered


# Endings of Polish numeral forms that people confuse (the case of the phrase).
NUMERAL_SLIPS = (("ego", "ym"), ("ym", "ego"), ("ch", "m"), ("u", "ch"), ("ma", "u"), ("ej", "ą"), ("ą", "ej"))


def _label_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    return {"answer": rng.choice([label for label in "ABCD" if label != answer["answer"]])}


def _numerals_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    words = answer["answer"].split(" ")
    for ending, replacement in NUMERAL_SLIPS:
        if words[-1].endswith(ending):
            words[-1] = words[-1][: -len(ending)] + replacement
            break
    return {"answer": " ".join(words)}


def _morphosyntax_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    if answer["answer"] == "POPRAWNE":  # sees an error where there is none
        return {"answer": "NIEPOPRAWNE", "corrected_sentence": item["sentence"].replace(",", "", 1)}
    if rng.random() < 0.5:  # misses the error
        return {"answer": "POPRAWNE", "corrected_sentence": ""}
    return {"answer": "NIEPOPRAWNE", "corrected_sentence": item["sentence"]}  # a correction that corrects nothing


def _commas_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    required, optional = list(answer["commas"]), list(answer["optional"])
    free = [marker for marker in range(1, len(markers(item["sentence_with_positions"])) + 1)
            if marker not in required and marker not in optional]
    if required and (not free or rng.random() < 0.5):
        missed = rng.choice(required)
        required.remove(missed)
        if rng.random() < 0.5:
            optional.append(missed)
    elif free:
        required.append(rng.choice(free))
    return {"commas": sorted(required), "optional": sorted(optional)}


def _discourse_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    units = [dict(unit) for unit in answer["discourse_units"]]
    heads = {unit["du_id"]: unit["head"] for unit in units}
    dependents = [unit for unit in units if unit["head"] is not None]
    if not dependents:
        return answer
    unit = rng.choice(dependents)
    grandparent = heads[unit["head"]]
    if grandparent is not None and rng.random() < 0.4:
        unit["head"] = grandparent  # one level up: still a tree
    else:
        unit["relation"] = rng.choice([relation for relation in RELATIONS if relation != unit["relation"]])
    return {"discourse_units": units}


SLIPS = {
    "wsd": _label_slip,
    "coreference": _label_slip,
    "numerals": _numerals_slip,
    "morphosyntax": _morphosyntax_slip,
    "commas": _commas_slip,
    "discourse": _discourse_slip,
}


def gold_answer(subtask: str, gold: dict) -> dict:
    """The answer fields of a gold line (numerals: the first accepted form)."""
    if subtask == "numerals":
        return {"answer": gold["answers"][0]}
    return {name: gold[name] for name in get_subtask(subtask).answer_fields}


def demo_answer(subtask: str, item: dict, gold: dict, rng: random.Random) -> dict:
    answer = gold_answer(subtask, gold)
    if rng.random() < SLIP_RATE:
        slipped = SLIPS[subtask](item, answer, rng)
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
