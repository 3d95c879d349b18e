"""A panel study over routed commas datasets, and the panel's entry links."""

import secrets
from decimal import Decimal
from urllib.parse import urlencode

from django.urls import reverse

from annotation.datasets.routing import set_routing
from annotation.models import Study, StudyDataset
from tests.annotate.test_routing import records
from tests.factories import make_dataset

PANEL_STUDY = "5f0c4d7e8a9b1c2d3e4f5a6b"
ANSWER = {"commas": [1], "optional": []}


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
