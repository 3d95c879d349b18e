"""A seventh subtask made of new files only (tests/plugin/): its scorer module and schemas, and
its folder in the app, which defines no part. Both registries find it once its folders are on
their search paths, and it goes through every flow with the defaults: import with gold, the item
page (the raw JSON widget), saves, every export source, agreement, the majority, the report
(page, API, every format), the campaign table, the adjudication page, training feedback and
``load_demo``."""

import json
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

import annotation.subtasks
import scoring.subtasks
from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.assigning import assign
from annotation.datasets.importing import import_dataset
from annotation.models import Annotation, Dataset
from annotation.results.agreement import agreement_report
from annotation.results.exporting import build_export
from annotation.results.services import create_campaign
from annotation.subtasks.item_fields import answer_keys
from annotation.training.services import import_pool
from scoring.__main__ import main as scoring_main
from scoring.subtasks import SUBTASKS
from scoring.validation import validator
from tests.factories import make_user
from tests.item_pages import htmx_post, item_url

KEY = "palindromes"
pytestmark = pytest.mark.django_db

PLUGIN = Path(__file__).resolve().parent / "plugin"
WORDS = [("kajak", "tak"), ("kot", "nie"), ("oko", "tak"), ("pies", "nie")]
INPUTS = [{"id": f"p{n}", "word": word} for n, (word, _) in enumerate(WORDS, 1)]
GOLD = [{"id": f"p{n}", "answer": answer} for n, (_, answer) in enumerate(WORDS, 1)]


def jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()


def clear_caches() -> None:
    scoring.subtasks.discover()
    annotation.subtasks.app_module.cache_clear()
    answer_keys.cache_clear()
    validator.cache_clear()


@pytest.fixture
def seventh():
    """The toy subtask's folders on the registries' search paths, for this test only."""
    folders = [(scoring.subtasks, str(PLUGIN / "scoring_subtasks")), (annotation.subtasks, str(PLUGIN / "app_subtasks"))]
    for package, folder in folders:
        package.__path__.append(folder)
    clear_caches()
    yield SUBTASKS[KEY]
    for package, folder in folders:
        package.__path__.remove(folder)
        sys.modules.pop(f"{package.__name__}.{KEY}", None)
    clear_caches()


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def submit(client: Client, dataset: Dataset, position: int, answer: dict):
    return htmx_post(client, item_url(dataset, position),
                     {"intent": "submit", "answer": json.dumps(answer), "version": "0", "active_ms": "1000"})


@pytest.fixture
def answered(seventh, tmp_path):
    """The toy dataset imported with gold by the command, two annotators who answered every item
    on the item page (they disagree on p2), and an organizer."""
    inputs, gold = tmp_path / "inputs.jsonl", tmp_path / "gold.jsonl"
    inputs.write_bytes(jsonl(INPUTS))
    gold.write_bytes(jsonl(GOLD))
    call_command("import_items", KEY, str(inputs), "--gold", str(gold), "--dataset", "toy")
    dataset = Dataset.objects.get(name="toy")
    first, second = make_user("annotator", username="ania"), make_user("annotator", username="bartek")
    assign(dataset, [first, second], 2)
    for annotator, answers in ((first, ["tak", "nie", "tak", "nie"]), (second, ["tak", "tak", "tak", "nie"])):
        client = client_of(annotator)
        queue = dataset.assignments.filter(annotator=annotator).order_by("position").select_related("item")
        for assignment in queue:
            assert 'id="raw-answer"' in client.get(item_url(dataset, assignment.position)).content.decode()  # the default widget
            answer = answers[int(assignment.item.external_id[1:]) - 1]
            assert submit(client, dataset, assignment.position, {"answer": answer}).status_code == 200
    return dataset, first, second, make_user("organizer")


def test_the_registries_find_the_seventh_subtask_by_its_folders(seventh):
    assert list(SUBTASKS)[-1] == KEY and seventh.number == 7
    assert seventh.gold_answer_fields({"id": "1", "answer": "tak"}) == {"answer": "tak"}
    assert seventh.breakdown(seventh, [], {}, []) == {}
    assert annotation.subtasks.app_module(KEY).__file__.startswith(str(PLUGIN))
    assert scoring_main(["check-inputs", KEY, str(PLUGIN / "demo" / KEY / "dev.inputs.jsonl"),
                         "--gold", str(PLUGIN / "demo" / KEY / "dev.gold.jsonl")]) == 0


def test_the_import_page_offers_and_imports_the_seventh_subtask(seventh):
    client = client_of(make_user("organizer"))
    url = reverse("organizer_import")
    assert f'<option value="{KEY}">' in client.get(url).content.decode()
    response = client.post(url, {"name": "toy", "subtask": KEY, "inputs": SimpleUploadedFile("i.jsonl", jsonl(INPUTS)),
                                 "gold": SimpleUploadedFile("g.jsonl", jsonl(GOLD))})
    assert response.status_code == 302
    assert Dataset.objects.get(name="toy", subtask=KEY).items.filter(gold__isnull=False).count() == 4


def test_an_unknown_subtask_is_refused_by_the_import_with_the_known_keys(seventh):
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="anagrams", name="x", inputs=SourceFile("x.jsonl", jsonl(INPUTS)))
    [problem] = refused.value.problems
    assert problem.field == "subtask" and problem.code == "unknown_subtask" and KEY in problem.message
    assert not Dataset.objects.exists()


def test_the_seventh_subtask_is_annotated_exported_and_agreed_on(answered):
    dataset, first, second, organizer = answered
    stored = Annotation.objects.get(annotator=first, item__external_id="p1")
    assert stored.answer == {"answer": "tak"} and stored.status == Annotation.Status.SUBMITTED
    assert b'{"id": "p1", "answer": "tak"}' in build_export(dataset, f"annotator:{first.username}").data
    majority = build_export(dataset, "majority")
    assert majority.data == jsonl([{"id": "p1", "answer": "tak"}, {"id": "p3", "answer": "tak"}, {"id": "p4", "answer": "nie"}])
    assert majority.left_out == [("p2", "no majority")]
    assert build_export(dataset, "adjudicated").left_out == [("p2", "open")]
    assert build_export(dataset, "all").n_records == 8
    assert build_export(dataset, "all", "csv").data.startswith(b"id,annotator,answer,")
    report = agreement_report(dataset)
    assert report.figures["observed_agreement"] == 0.75
    [disagreement] = report.disagreements
    assert disagreement.item.external_id == "p2" and disagreement.kinds == []  # the default: no kinds
    page = client_of(organizer).get(reverse("organizer_agreement", args=[dataset.pk])).content.decode()
    assert "on which their answers are equal" in page  # the default text of a cell
    exports = client_of(organizer).get(reverse("organizer_exports", args=[dataset.pk]))
    assert exports.status_code == 200


def test_the_seventh_subtask_is_reported_page_api_and_every_format(answered):
    dataset, first, second, organizer = answered
    client = client_of(organizer)
    url = reverse("organizer_report", args=[dataset.pk])
    page = client.get(url).content.decode()
    assert f'<small lang="en">{KEY}</small>' in page and "<h3>majority</h3>" in page
    report = json.loads(client.get(url + "?format=json").content)
    assert report["subtask"] == KEY
    assert {row["source"]: row["breakdown"] for row in report["sources"] if row["available"]}["majority"] == {}
    assert {row["source"]: row["score"] for row in report["sources"] if row["available"]}["majority"] == 0.75
    for fmt in ("md", "csv", "tex"):
        response = client.get(url + f"?format={fmt}")
        assert response.status_code == 200 and "majority" in response.content.decode(), fmt
    api = APIClient()
    api.force_authenticate(organizer)
    assert api.get(reverse("api_dataset_report", args=[dataset.pk])).json()["subtask"] == KEY
    campaign = create_campaign(name="seven", datasets=[dataset])
    table = client.get(reverse("organizer_campaign", args=[campaign.pk])).content.decode()
    assert "Is the word a palindrome?" in table or KEY in table
    assert KEY in client.get(reverse("organizer_campaign", args=[campaign.pk]) + "?format=csv").content.decode()


def test_the_seventh_subtask_is_adjudicated_with_the_default_differences(answered):
    dataset, first, second, organizer = answered
    item = dataset.items.get(external_id="p2")
    page = client_of(make_user("adjudicator")).get(reverse("adjudicate_item", args=[dataset.pk, item.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Given by" in text and ">tak<" in text and ">nie<" in text  # the default tally of the answers


def test_the_seventh_subtask_gives_training_feedback(seventh):
    organizer, annotator = make_user("organizer"), make_user("annotator")
    # A pool's items are never the dataset's own (their gold would be shown in training).
    dataset = import_dataset(subtask=KEY, name="toy", inputs=SourceFile("i.jsonl", jsonl(INPUTS[2:])),
                             gold=SourceFile("g.jsonl", jsonl(GOLD[2:])))
    import_pool(kind=Dataset.PoolKind.TRAINING, dataset=dataset, subtask=KEY, name="toy.training",
                inputs=SourceFile("t.jsonl", jsonl(INPUTS[:2])), gold=SourceFile("tg.jsonl", jsonl(GOLD[:2])),
                created_by=organizer)
    assign(dataset, [annotator], 1)
    client = client_of(annotator)
    training_url = reverse("training_item", args=[dataset.pk, 1])
    assert 'id="raw-answer"' in client.get(training_url).content.decode()
    client.post(training_url, {"intent": "submit", "answer": json.dumps({"answer": "nie"})})
    feedback = client.get(training_url).content.decode()
    assert 'id="training-gold"' in feedback and "Given by" in feedback


def test_load_demo_loads_the_seventh_subtasks_sample_data(seventh, capsys):
    call_command("load_demo", "--data", str(PLUGIN / "demo"))
    assert Dataset.objects.get(name=f"demo-{KEY}").items.count() == 6
    answered = Dataset.objects.get(name=f"demo-answered-{KEY}")
    assert Annotation.objects.filter(item__dataset=answered).count() > 0
    assert not Dataset.objects.exclude(subtask=KEY).exists()
