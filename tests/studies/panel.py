"""A panel study over routed commas datasets, the panel's entry links, and participants' answers
written straight to the database."""

import secrets
from decimal import Decimal
from urllib.parse import urlencode

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from annotation.answers.normalised import normalised_answer
from annotation.datasets.routing import set_routing
from annotation.models import Annotation, Dataset, Item, Study, StudyDataset
from tests.annotate.test_routing import records
from tests.factories import make_dataset
from tests.organizer.conftest import answer_from_gold

PANEL_STUDY = "5f0c4d7e8a9b1c2d3e4f5a6b"
ANSWER = {"commas": [1], "optional": []}
ANSWERED = 4  # the first items of a wsd dataset, answered by ``answer``


def panel_id(number: int) -> str:
    """A Prolific participant id: 24 hexadecimal digits."""
    return f"{number:024x}"


def routed_dataset(items: int, k: int, name: str | None = None):
    dataset = make_dataset("commas", records(items), name=name)
    return set_routing(dataset, routing=True, answers_per_item=k)


def make_study(*datasets_and_quotas, **fields) -> Study:
    settings = {
        "name": f"study-{secrets.token_hex(3)}", "token": secrets.token_urlsafe(24), "consent": "Zgadzam się na udział.",
        "completed_code": "C0MPL3T", "screened_out_code": "SCR33N", "no_consent_code": "N0C0NS",
        "panel_study_id": PANEL_STUDY, "pay_amount": Decimal("3.00"), **fields,
    }
    study = Study.objects.create(**settings)
    for order, (dataset, quota) in enumerate(datasets_and_quotas, start=1):
        StudyDataset.objects.create(study=study, dataset=dataset, order=order, quota=quota)
    return study


def entry_url(study: Study, participant: str, session: str = "s1", study_id: str = PANEL_STUDY) -> str:
    query = {"PROLIFIC_PID": participant, "STUDY_ID": study_id, "SESSION_ID": session}
    return reverse("study_entry", args=[study.token]) + "?" + urlencode(query)


def wrong(answer: dict) -> dict:
    return {"answer": next(letter for letter in "ABCD" if letter != answer["answer"])}


def answer(dataset: Dataset, user: User, right: bool) -> None:
    """The first ANSWERED items of a wsd dataset submitted by ``user``: the gold, or another letter."""
    items = Item.objects.filter(dataset=dataset).select_related("gold").order_by("ordinal")[:ANSWERED]
    for item in items:
        fields = answer_from_gold("wsd", item.gold.payload)
        fields = fields if right else wrong(fields)
        Annotation.objects.create(item=item, annotator=user, answer=fields, status=Annotation.Status.SUBMITTED,
                                  submitted_at=timezone.now(), active_ms=4000,
                                  normalised_answer=normalised_answer("wsd", fields))
