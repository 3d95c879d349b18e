"""Pools that refuse traps: no input shared with the dataset or its other pool (by id or by
text), a second pool refused in the organizer's words, replaced while no one has started it,
archived once someone has; the same from the training page and the command."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import translation

from annotation.annotate.queue import is_qualified
from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets import removing
from annotation.datasets.assigning import assign
from annotation.models import Dataset, RemovalRecord
from annotation.training import selectors as trainings
from annotation.training.services import answer_training_item, current_round, import_pool
from tests.annotate.conftest import wsd_records

pytestmark = pytest.mark.django_db


def jsonl(records) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()


def own_records(first: int, count: int, prefix: str) -> list[dict]:
    """wsd records of their own texts (the dataset's are numbers 1..12), ids ``prefix-n``."""
    return [{**record, "id": f"{prefix}-{n}"} for n, record in enumerate(wsd_records(first + count - 1)[first - 1:], 1)]


def gold_of(records) -> list[dict]:
    return [{"id": record["id"], "answer": "B"} for record in records]


def pool_of(dataset, kind, records, **options):
    return import_pool(kind=kind, dataset=dataset, subtask="wsd", name=None, inputs=SourceFile("pool.jsonl", jsonl(records)),
                       gold=SourceFile("pool.gold.jsonl", jsonl(gold_of(records))), **options)


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


def post_pool(client, dataset, kind, records, **fields):
    return client.post(reverse("organizer_training", args=[dataset.pk]), {
        "action": "pool", "kind": kind, "inputs": SimpleUploadedFile("pool.jsonl", jsonl(records)),
        "gold": SimpleUploadedFile("pool.gold.jsonl", jsonl(gold_of(records))), **fields,
    }, HTTP_ACCEPT_LANGUAGE="pl")


def test_a_training_pool_of_the_datasets_own_items_is_refused_on_the_page(organizer_client, dataset):
    """The trap: the test items (with their gold) as the training round."""
    response = post_pool(organizer_client, dataset, "training", wsd_records(12))
    assert response.status_code == 422
    page = response.content.decode()
    assert "pool.jsonl" in page and "„wsd-1” to także identyfikator w: zbiór „" in page
    assert not Dataset.objects.filter(pool_of=dataset).exists()


def test_the_same_text_under_other_ids_is_refused_naming_the_line(dataset):
    records = [*own_records(20, 2, "t"), {**wsd_records(5)[4], "id": "t-3"}]
    with translation.override("pl"), pytest.raises(Refused) as refused:
        pool_of(dataset, "training", records)
    (problem,) = refused.value.problems
    assert (problem.code, problem.file, problem.line, problem.field) == ("shared_input", "pool.jsonl", 3, "id")
    assert problem.params == {"id": "t-3", "other": "wsd-5", "dataset": dataset.name, "where": f"zbiór „{dataset.name}”"}
    assert problem.message.startswith("„t-3” ma ten sam tekst co „wsd-5” w: zbiór")
    assert not Dataset.objects.filter(pool_of=dataset).exists()


def test_a_control_pool_may_share_nothing_with_the_training_pool(dataset):
    training = pool_of(dataset, "training", own_records(20, 3, "t"))
    with translation.override("pl"), pytest.raises(Refused) as refused:
        pool_of(dataset, "control", [*own_records(30, 2, "c"), {**training.items.get(external_id="t-2").payload}])
    assert [(problem.line, problem.message) for problem in refused.value.problems] == [
        (3, "„t-2” to także identyfikator w: pula treningowa; pozycje puli muszą być inne")]
    # Pools of other datasets are no concern of this one.
    other = Dataset.objects.create(name="other", subtask="wsd", source_filename="x", source_sha256="0" * 64)
    assert pool_of(other, "control", own_records(20, 3, "t")).pool_of == other


def test_a_second_pool_is_refused_in_polish_and_replaced_while_no_one_has_started_it(organizer_client, dataset):
    first = pool_of(dataset, "training", own_records(20, 3, "t"))
    response = post_pool(organizer_client, dataset, "training", own_records(40, 2, "u"))
    assert response.status_code == 422
    page = response.content.decode()
    assert "ma już pulę (pula treningowa): zastąp ją" in page
    assert "has a training pool already" not in page
    response = post_pool(organizer_client, dataset, "training", own_records(40, 2, "u"), replace="on")
    assert response.status_code == 302
    new = trainings.pool(dataset, Dataset.PoolKind.TRAINING)
    assert (new.name, new.items.count()) == (first.name, 2)
    assert not Dataset.objects.filter(pk=first.pk).exists()
    (done,) = RemovalRecord.objects.all()
    assert (done.dataset, done.kind, done.name, done.action, done.counts["items"]) == (
        dataset, "training", first.name, "deleted", 3)


def test_a_started_pool_is_not_replaced_but_archived_and_another_imported(dataset, annotator, tmp_path, capsys):
    first = pool_of(dataset, "training", own_records(20, 3, "t"))
    assign(dataset, [annotator], 1)
    answer_training_item(round=current_round(dataset, annotator), item=first.items.get(external_id="t-1"),
                         answer={"answer": "B"})
    (tmp_path / "u.jsonl").write_bytes(jsonl(own_records(40, 2, "u")))
    (tmp_path / "u.gold.jsonl").write_bytes(jsonl(gold_of(own_records(40, 2, "u"))))
    arguments = ["import_items", "wsd", str(tmp_path / "u.jsonl"), "--gold", str(tmp_path / "u.gold.jsonl"),
                 "--training-for", dataset.name]
    with pytest.raises(CommandError) as not_a_pool:
        call_command(*arguments[:5], "--dataset", "other", "--replace")
    assert not_a_pool.value.returncode == 2
    with pytest.raises(CommandError):
        call_command(*arguments, "--replace")
    assert "has been started (answers: 1), so it is not replaced" in capsys.readouterr().err
    assert trainings.pool(dataset, Dataset.PoolKind.TRAINING) == first

    removing.archive(first, by=None)
    assert trainings.pool(dataset, Dataset.PoolKind.TRAINING) is None
    assert is_qualified(annotator, dataset.pk)  # no serving training pool: the dataset is open
    call_command(*arguments)
    new = trainings.pool(dataset, Dataset.PoolKind.TRAINING)
    assert (new.name, [item.external_id for item in trainings.training_items(dataset)]) == (
        f"{dataset.name}.training-2", ["u-1", "u-2"])
    assert not is_qualified(annotator, dataset.pk)
    # The round begun on the archived pool counts only the serving pool's items.
    round_ = current_round(dataset, annotator)
    answer_training_item(round=round_, item=new.items.get(external_id="u-1"), answer={"answer": "B"})
    round_.refresh_from_db()
    assert round_.finished_at is None
    # Restoring the archived pool is refused while another serves.
    with pytest.raises(Refused, match="archive that one first"):
        removing.restore(first, by=None)
