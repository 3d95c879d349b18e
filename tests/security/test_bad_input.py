"""Input that JSON (or a form) allows but the database cannot take, or Python cannot read, is
refused with a message naming the file, line and field, writes nothing, and never ends in a
server error. Each request below ended in a 500 before."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.importing import import_dataset, import_gold
from annotation.models import Annotation, Dataset, Flag, GoldAnswer, Item
from tests.annotate.conftest import wsd_records
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import htmx_post, item_url

pytestmark = pytest.mark.django_db

WSD = wsd_records(2)
# Each is one JSONL line (an input record of WSD) that the database or Python cannot take.
UNSTORABLE_LINES = {
    "nul": json.dumps({**WSD[1], "reference_sentence": "Zdanie\u0000 z [[TARGET]]zamkiem[[/TARGET]]."}),
    "surrogate": json.dumps(WSD[1]).replace("Zdanie", "\\ud800Zdanie"),
    "infinite": json.dumps(WSD[1])[:-1] + ', "extra": 1e400}',
}
UNREADABLE_LINES = {
    "long_number": json.dumps(WSD[1])[:-1] + ', "extra": ' + "7" * 5000 + "}",
    "deep": "[" * 100_000,
}


def client_of(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.mark.parametrize("case", sorted(UNSTORABLE_LINES))
def test_an_unstorable_input_line_is_refused_naming_file_line_and_field(case):
    data = (json.dumps(WSD[0]) + "\n" + UNSTORABLE_LINES[case] + "\n").encode()
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="wsd", name="bad", inputs=SourceFile("in.jsonl", data))
    located = [(p.file, p.line, p.field) for p in refused.value.problems if p.code == "unstorable"]
    field = "extra" if case == "infinite" else "reference_sentence"
    assert located == [("in.jsonl", 2, field)]
    assert not Dataset.objects.exists() and not Item.objects.exists()


@pytest.mark.parametrize("case", sorted(UNREADABLE_LINES))
def test_an_unreadable_input_line_is_refused_naming_file_and_line(case):
    data = (json.dumps(WSD[0]) + "\n" + UNREADABLE_LINES[case] + "\n").encode()
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="wsd", name="bad", inputs=SourceFile("in.jsonl", data))
    assert [(p.file, p.line, p.field) for p in refused.value.problems] == [("in.jsonl", 2, "json")]
    assert not Dataset.objects.exists()


@pytest.mark.parametrize("case", sorted({**UNSTORABLE_LINES, **UNREADABLE_LINES}))
def test_the_upload_page_lists_the_problem_and_imports_nothing(case):
    line = {**UNSTORABLE_LINES, **UNREADABLE_LINES}[case]
    data = (json.dumps(WSD[0]) + "\n" + line + "\n").encode()
    response = client_of(make_user("organizer")).post(
        reverse("organizer_import"),
        {"name": "bad", "subtask": "wsd", "inputs": SimpleUploadedFile("in.jsonl", data)},
    )
    assert response.status_code == 422
    assert "<td>in.jsonl</td><td>2</td>" in response.content.decode()
    assert not Dataset.objects.exists()


def test_unstorable_gold_is_refused_and_nothing_is_written():
    dataset = make_dataset("morphosyntax", [{"id": "m1", "sentence": "Kot śpią."}, {"id": "m2", "sentence": "Psy śpi."}])
    gold = [
        {"id": "m1", "answer": "NIEPOPRAWNE", "corrected_sentence": "Kot śpi."},
        {"id": "m2", "answer": "NIEPOPRAWNE", "corrected_sentence": "Psy\u0000 śpią."},
    ]
    data = "\n".join(json.dumps(line) for line in gold).encode()
    with pytest.raises(Refused) as refused:
        import_gold(dataset=dataset, gold=SourceFile("gold.jsonl", data))
    assert [(p.file, p.line, p.field) for p in refused.value.problems] == [("gold.jsonl", 2, "corrected_sentence")]
    assert not GoldAnswer.objects.exists()


@pytest.fixture
def commas_queue():
    annotator = make_user("annotator")
    dataset = make_dataset("commas", [{"id": "c1", "sentence_with_positions": "Ala ma kota [1] a kot ma Alę."}])
    assign_in_order(dataset, annotator)
    return client_of(annotator), dataset


@pytest.mark.parametrize(
    "answer", ['{"commas": ["\\u0000"]}', '{"commas": [1e400]}', '{"commas": [NaN]}', '{"\\ud800": []}']
)
@pytest.mark.parametrize("intent", ["draft", "submit"])
def test_an_unstorable_answer_on_the_item_page_is_refused_and_stores_nothing(commas_queue, answer, intent):
    client, dataset = commas_queue
    response = htmx_post(client, item_url(dataset, 1), {"intent": intent, "answer": answer, "version": "0"})
    assert response.status_code == 422
    assert "a character that cannot be saved" in response.content.decode()  # a sentence, no field path
    assert not Annotation.objects.exists()


def test_an_answer_nested_too_deeply_on_the_item_page_is_refused(commas_queue):
    client, dataset = commas_queue
    response = htmx_post(client, item_url(dataset, 1), {"intent": "draft", "answer": "[" * 100_000, "version": "0"})
    assert response.status_code == 422
    assert not Annotation.objects.exists()


def test_an_unstorable_answer_through_the_api_is_refused_and_stores_nothing(commas_queue):
    client, dataset = commas_queue
    item = dataset.items.get()
    body = f'{{"item": {item.pk}, "answer": {{"commas": [], "optional": ["\\u0000"]}}, "status": "draft", "version": 0}}'
    response = client.post("/api/annotations/", body, content_type="application/json")
    assert response.status_code == 422  # a refused answer, as on the item page
    assert response.json()["problems"] == [
        "optional: holds the character U+0000, an unpaired surrogate or a number too large (or NaN), which cannot be stored"
    ]
    assert response.json()["codes"] == ["unstorable"]  # the API keeps the field and the code
    assert not Annotation.objects.exists()


def test_an_api_body_nested_too_deeply_is_a_400(commas_queue):
    client, _ = commas_queue
    response = client.post("/api/annotations/", "[" * 100_000, content_type="application/json")
    assert response.status_code == 400


def test_a_non_decimal_dataset_filter_of_the_api_is_ignored(commas_queue):
    client, _ = commas_queue
    assert client.get("/api/annotations/", {"dataset": "²"}).status_code == 200


def test_a_flag_comment_with_nul_is_refused_and_stores_nothing(commas_queue):
    client, dataset = commas_queue
    response = htmx_post(client, item_url(dataset, 1), {"intent": "flag", "comment": "zły\x00 przykład"})
    assert response.status_code == 422
    assert not Flag.objects.exists()


def test_the_discourse_tree_partial_refuses_unreadable_json_with_a_400():
    annotator = make_user("annotator")
    dataset = make_dataset("discourse", [{"id": "d1", "text": "[[DU1]]Ala.[[/DU1]]"}])
    assign_in_order(dataset, annotator)
    client = client_of(annotator)
    url = item_url(dataset, 1) + "?partial=tree"
    for answer in ['{"tree": ' + "1" * 5000 + "}", "[" * 100_000]:
        assert htmx_post(client, url, {"answer": answer}).status_code == 400


def test_resolving_a_flag_named_by_no_number_is_a_404():
    dataset = make_dataset("wsd", WSD)
    response = client_of(make_user("organizer")).post(
        reverse("organizer_dataset", args=[dataset.pk]), {"action": "resolve", "flag": "abc", "note": "x"}
    )
    assert response.status_code == 404
