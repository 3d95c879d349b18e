"""Sample data of every subtask (the repository's demo/data) and answers made from its gold."""

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from annotation.core.files import SourceFile
from annotation.datasets.importing import import_dataset
from annotation.models import Annotation, Dataset
from scoring.subtasks import SUBTASKS, get_subtask
from tests.factories import make_user

DEMO_DATA = Path(settings.BASE_DIR) / "demo" / "data"


def sample_files(subtask: str) -> tuple[Path, Path]:
    folder = DEMO_DATA / subtask
    (gold,) = folder.glob("dev.*gold.jsonl")
    return folder / "dev.inputs.jsonl", gold


def source(path: Path) -> SourceFile:
    return SourceFile(name=path.name, data=path.read_bytes())


def import_sample(subtask: str, name: str | None = None, with_gold: bool = True) -> Dataset:
    inputs, gold = sample_files(subtask)
    return import_dataset(
        subtask=subtask,
        name=name or f"sample-{subtask}",
        inputs=source(inputs),
        gold=source(gold) if with_gold else None,
        gold_synthetic="SYNTHETIC" in gold.name,
    )


def answer_from_gold(subtask: str, gold: dict) -> dict:
    """A correct answer (answer fields only) made from a gold line."""
    if subtask == "numerals":
        return {"answer": gold["answers"][0]}
    return {name: gold[name] for name in get_subtask(subtask).answer_fields}


def submit_answers(dataset: Dataset, annotator: User, every: int = 1) -> list[Annotation]:
    """Submit the gold answer of every `every`-th item assigned to the annotator."""
    assignments = dataset.assignments.filter(annotator=annotator).select_related("item__gold").order_by("item__ordinal")
    return Annotation.objects.bulk_create(
        Annotation(
            item=assignment.item,
            annotator=annotator,
            answer=answer_from_gold(dataset.subtask, assignment.item.gold.payload),
            status=Annotation.Status.SUBMITTED,
            submitted_at=timezone.now(),
            active_ms=1000 * (index + 1),
        )
        for index, assignment in enumerate(assignments)
        if index % every == 0
    )


@pytest.fixture(params=tuple(SUBTASKS))
def subtask(request) -> str:
    return request.param


@pytest.fixture
def organizer():
    return make_user("organizer", username="olga")


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client
