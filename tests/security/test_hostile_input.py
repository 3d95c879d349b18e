"""Regression tests of the hostile inputs that ended in a server error, or were stored or
served when they should not have been: deep nesting, ids past the database's range, a NUL in
the session cookie, answer keys in input lines, sizes beyond the limits, oversized uploads.
Each goes through every entry point that took it: the item page, the API, the upload page and
the import command."""

import hashlib
import json
import tracemalloc

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from django.urls import reverse

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets import importing
from annotation.datasets.importing import import_dataset
from annotation.models import Annotation, Dataset, Item
from annotation.subtasks import limits
from tests.factories import assign_in_order, make_user
from tests.item_pages import htmx_post
from tests.security.conftest import client_of, make_queue, sample_records

pytestmark = pytest.mark.django_db

# Deeper than any value needs, around where Python's own recursion gave out, and far past it.
DEPTHS = [limits.MAX_DEPTH + 1, 400, 990, 5000]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()


# ---- 1. deep nesting ----


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_deep_answer_through_the_api_is_a_422_with_a_message(depth):
    queue = make_queue("commas")
    body = f'{{"item": {queue.item.pk}, "answer": {{"commas": {nested(depth)}}}, "status": "draft", "version": 0}}'
    response = queue.client.post("/api/annotations/", body, content_type="application/json")
    # Deeper than Python reads is a 400 of the JSON parser; readable but too deep, the save's 422.
    assert response.status_code in (400, 422)
    assert "nested" in json.dumps(response.json())
    assert not Annotation.objects.exists()


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("intent", ["draft", "submit"])
def test_a_deep_answer_on_the_item_page_is_a_422_with_a_message(depth, intent):
    queue = make_queue("commas")
    answer = f'{{"commas": {nested(depth)}, "optional": []}}'
    response = htmx_post(queue.client, queue.page, {"intent": intent, "answer": answer, "version": "0"})
    assert response.status_code == 422
    assert "nested" in response.content.decode()
    assert not Annotation.objects.exists()


def deep_extra_line(depth: int) -> str:
    record = sample_records("commas", 1)[0]
    return json.dumps({**record, "id": "deep"})[:-1] + f', "extra": {nested(depth)}}}'


@pytest.mark.parametrize("depth", DEPTHS)
def test_an_upload_line_with_a_deep_extra_field_is_listed_with_its_line(depth):
    data = jsonl(sample_records("commas", 1)) + deep_extra_line(depth).encode() + b"\n"
    response = client_of(make_user("organizer")).post(
        reverse("organizer_import"), {"name": "deep", "subtask": "commas", "inputs": SimpleUploadedFile("in.jsonl", data)}
    )
    assert response.status_code == 422
    assert "<td>in.jsonl</td><td>2</td>" in response.content.decode()
    assert not Dataset.objects.exists()


@pytest.mark.parametrize("depth", DEPTHS)
def test_import_items_refuses_a_deep_line_naming_it(tmp_path, capsys, depth):
    path = tmp_path / "in.jsonl"
    path.write_bytes(jsonl(sample_records("commas", 1)) + deep_extra_line(depth).encode() + b"\n")
    with pytest.raises(CommandError):
        call_command("import_items", "commas", str(path), "--dataset", "deep")
    assert "in.jsonl:2:" in capsys.readouterr().err
    assert not Dataset.objects.exists()


# ---- 2. drafts of any shape: the pages draw whatever is stored ----

ODD_DRAFTS = [
    {"discourse_units": [{"du_id": [], "head": None, "relation": None}]},
    {"discourse_units": [{"du_id": "x", "head": [], "relation": {"a": 1}}]},
    {"discourse_units": [1, None, {"du_id": []}, "x"]},
    {"discourse_units": "x"},
    {"a": 1},
    ["x"],
    "x",
    7,
    {"commas": ["<img src=x>", {"a": 1}, None, True, 1.5], "optional": 3},
    {"answer": ["B"], "corrected_sentence": {"x": 1}},
]


@pytest.mark.parametrize("subtask", ["discourse", "commas", "morphosyntax", "numerals", "wsd", "coreference"])
def test_every_item_page_draws_a_stored_draft_of_any_shape(subtask):
    queue = make_queue(subtask)
    annotation = Annotation.objects.create(item=queue.item, annotator=queue.annotator, answer={}, version=1)
    for draft in ODD_DRAFTS:
        Annotation.objects.filter(pk=annotation.pk).update(answer=draft)
        response = queue.client.get(queue.page)
        assert response.status_code == 200, (subtask, draft)


@pytest.mark.parametrize("draft", ODD_DRAFTS[:4])
def test_the_tree_partial_draws_a_posted_draft_of_any_shape(draft):
    queue = make_queue("discourse")
    response = htmx_post(queue.client, queue.page + "?partial=tree", {"answer": json.dumps(draft)})
    assert response.status_code == 200


# ---- 3. ids past the database's range ----

HUGE = "99999999999999999999"


def test_urls_with_ids_past_the_range_are_404():
    queue = make_queue("commas")
    for url in (f"/annotate/{HUGE}/", f"/annotate/{queue.dataset.pk}/{HUGE}/", f"/annotate/{HUGE}/done/",
                f"/annotate/{HUGE}/1/", f"/api/datasets/{HUGE}/items/", f"/api/annotations/{HUGE}/"):
        assert queue.client.get(url).status_code == 404, url
    organizer = client_of(make_user("organizer"))
    for url in (f"/api/datasets/{HUGE}/items/", f"/organize/{HUGE}/"):
        assert organizer.get(url).status_code == 404, url


def test_api_ids_past_the_range_are_a_400_or_an_empty_list():
    queue = make_queue("commas")
    body = {"item": int(HUGE + "0"), "answer": {"commas": [], "optional": []}, "status": "draft", "version": 0}
    response = queue.client.post("/api/annotations/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["problems"][0].startswith("item: ")
    response = queue.client.get("/api/annotations/", {"dataset": HUGE})
    assert response.status_code == 200 and response.json()["results"] == []


# ---- 4. a NUL in the session cookie ----


@pytest.mark.parametrize("url", ["/accounts/login/", "/", "/api/datasets/", "/healthz"])
def test_a_session_cookie_with_nul_is_no_session(url):
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "\x00\x00abc"
    response = client.get(url)
    assert response.status_code in (200, 302, 401, 403), (url, response.status_code)


def test_a_logged_in_session_still_works_beside_the_check():
    queue = make_queue("commas")
    assert queue.client.get(queue.page).status_code == 200


# ---- 5. answer keys in input lines; annotators see the input schema's fields only ----

ANSWER_KEY_LINES = {
    "commas": ({"commas": [2], "optional": []}, ["commas", "optional"]),
    "morphosyntax": ({"answer": "POPRAWNE"}, ["answer"]),
    "numerals": ({"answers": ["pięć"]}, ["answers"]),
    "wsd": ({"answer": "A"}, ["answer"]),
    "coreference": ({"answer": "B"}, ["answer"]),
}


@pytest.mark.parametrize("subtask", sorted(ANSWER_KEY_LINES))
def test_an_input_line_with_answer_fields_is_refused_naming_them(subtask):
    extra, fields = ANSWER_KEY_LINES[subtask]
    records = sample_records(subtask, 2)
    records[1] = {**records[1], **extra, "gold": {"x": 1}}
    with pytest.raises(Refused) as refused:
        import_dataset(subtask=subtask, name="leaky", inputs=SourceFile("in.jsonl", jsonl(records)))
    found = [(p.line, p.field) for p in refused.value.problems if p.code == "answer_in_input"]
    assert found == [(2, field) for field in sorted([*fields, "gold"])]
    assert not Item.objects.exists()


def test_a_discourse_line_with_heads_inside_its_units_is_refused():
    record = sample_records("discourse", 1)[0]
    record["discourse_units"][1] = {**record["discourse_units"][1], "head": "x", "relation": "Cause"}
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="discourse", name="leaky", inputs=SourceFile("in.jsonl", jsonl([record])))
    assert sorted(p.field for p in refused.value.problems) == ["discourse_units[1].head", "discourse_units[1].relation"]


def test_other_unknown_keys_are_kept_for_organizers_but_never_served_to_annotators():
    record = {**sample_records("commas", 1)[0], "source": "SECRET-NOTE", "meta": {"x": "SECRET-NOTE"}}
    dataset = import_dataset(subtask="commas", name="extra", inputs=SourceFile("in.jsonl", jsonl([record])))
    annotator = make_user("annotator")
    assign_in_order(dataset, annotator)
    client = client_of(annotator)
    items = client.get(f"/api/datasets/{dataset.pk}/items/").json()["results"]
    assert items[0]["payload"] == {"id": record["id"], "sentence_with_positions": record["sentence_with_positions"]}
    assert "SECRET-NOTE" not in client.get(reverse("annotate_item", args=[dataset.pk, 1])).content.decode()
    organizer = client_of(make_user("organizer"))
    assert organizer.get(f"/api/datasets/{dataset.pk}/items/").json()["results"][0]["payload"] == record


# ---- 6. sizes ----


def test_a_two_megabyte_numerals_answer_is_refused_on_the_page_and_in_the_api():
    queue = make_queue("numerals")
    # The page's form body is capped by Django (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB): 1 MB there.
    page_answer = {"answer": "piec " * 200_000}
    response = htmx_post(queue.client, queue.page, {"intent": "draft", "answer": json.dumps(page_answer), "version": "0"})
    assert response.status_code == 422 and "too long" in response.content.decode()
    answer = {"answer": "piec " * 400_000}
    body = {"item": queue.item.pk, "answer": answer, "status": "submitted", "version": 0}
    response = queue.client.post("/api/annotations/", body, content_type="application/json")
    assert response.status_code == 422 and "too long" in response.json()["detail"]
    assert not Annotation.objects.exists()


def test_a_correction_longer_than_twice_the_sentence_is_refused_and_a_long_one_kept():
    queue = make_queue("morphosyntax")
    sentence = queue.item.payload["sentence"]
    too_long = {"answer": "NIEPOPRAWNE", "corrected_sentence": sentence * 3 + "x" * limits.TEXT_MARGIN}
    response = htmx_post(queue.client, queue.page, {"intent": "draft", "answer": json.dumps(too_long), "version": "0"})
    assert response.status_code == 422
    assert not Annotation.objects.exists()
    long_enough = {"answer": "NIEPOPRAWNE", "corrected_sentence": sentence * 2}
    response = htmx_post(queue.client, queue.page, {"intent": "draft", "answer": json.dumps(long_enough), "version": "0"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "answer", [{"commas": [10**30], "optional": []}, {"commas": list(range(1, 500)), "optional": []}]
)
def test_commas_drafts_beyond_the_sentence_are_refused(answer):
    queue = make_queue("commas")
    response = htmx_post(queue.client, queue.page, {"intent": "draft", "answer": json.dumps(answer), "version": "0"})
    assert response.status_code == 422
    assert not Annotation.objects.exists()


def test_a_long_flag_comment_is_refused():
    queue = make_queue("commas")
    response = htmx_post(queue.client, queue.page, {"intent": "flag", "comment": "x" * (limits.MAX_COMMENT + 1)})
    assert response.status_code == 422


def test_an_item_text_beyond_the_limit_is_refused_with_its_line_and_field():
    records = sample_records("morphosyntax", 2)
    records[1]["sentence"] = "Zdanie. " * (limits.MAX_ITEM_TEXT // 8 + 1)
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="morphosyntax", name="big", inputs=SourceFile("in.jsonl", jsonl(records)))
    assert [(p.line, p.field, p.code) for p in refused.value.problems] == [(2, "sentence", "too_long")]


def test_a_line_beyond_the_byte_limit_is_refused_without_being_read(monkeypatch):
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 1000)
    records = sample_records("commas", 3)
    data = jsonl(records[:1]) + b'{"id": "' + b"x" * 5000 + b'"}\n' + jsonl(records[1:])
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="commas", name="wide", inputs=SourceFile("in.jsonl", data))
    assert [(p.line, p.field) for p in refused.value.problems] == [(2, "line")]


# ---- 7. streaming import and the upload limit ----


def test_an_import_in_many_chunks_numbers_lines_in_the_file_and_finds_repeats_across_chunks(monkeypatch):
    monkeypatch.setattr(importing, "CHUNK_LINES", 7)
    template = sample_records("commas", 1)[0]
    records = [{**template, "id": f"c{n}"} for n in range(30)]
    records[25] = {**template, "id": "c3"}
    records[17] = {**template, "id": "c17", "commas": [1]}
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="commas", name="chunks", inputs=SourceFile("in.jsonl", jsonl(records)))
    assert [(p.line, p.field) for p in refused.value.problems] == [(18, "commas"), (26, "id")]
    assert not Item.objects.exists() and not Dataset.objects.exists()
    records[25], records[17] = {**template, "id": "c25"}, {**template, "id": "c17"}
    dataset = import_dataset(subtask="commas", name="chunks", inputs=SourceFile("in.jsonl", jsonl(records)))
    assert list(dataset.items.order_by("ordinal").values_list("external_id", flat=True)) == [f"c{n}" for n in range(30)]


def test_a_repeat_inside_a_later_chunk_names_the_first_line_in_the_file(monkeypatch):
    monkeypatch.setattr(importing, "CHUNK_LINES", 7)
    template = sample_records("commas", 1)[0]
    records = [{**template, "id": f"c{n}"} for n in range(20)]
    records[12] = {**template, "id": "c9"}  # lines 10 and 13: both in the second chunk (lines 8-14)
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="commas", name="chunks", inputs=SourceFile("in.jsonl", jsonl(records)))
    [repeat] = refused.value.problems
    assert (repeat.line, repeat.code, dict(repeat.params)) == (13, "duplicate_id", {"id": "c9", "first_line": 10})
    assert str(repeat) == "in.jsonl:13: id: duplicate id 'c9' (first on line 10)"


def test_an_import_opens_each_file_once_and_hashes_the_bytes_it_read(monkeypatch, tmp_path):
    opened = []
    original_open = SourceFile.open
    monkeypatch.setattr(SourceFile, "open", lambda source: opened.append(source.name) or original_open(source))
    records = sample_records("commas", 3)
    path = tmp_path / "in.jsonl"
    path.write_bytes(jsonl(records))
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(jsonl([{"id": record["id"], "commas": [], "optional": []} for record in records]))
    dataset = import_dataset(subtask="commas", name="once", inputs=SourceFile("in.jsonl", path=str(path)),
                             gold=SourceFile("gold.jsonl", path=str(gold)))
    assert opened == ["in.jsonl", "gold.jsonl"]
    assert dataset.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def import_peak_bytes(tmp_path, count: int) -> tuple[int, int]:
    """(peak memory of importing ``count`` items, size of the file)."""
    template = sample_records("commas", 1)[0]
    long_sentence = " ".join([template["sentence_with_positions"]] + ["Ala ma kota."] * 100)
    path = tmp_path / f"{count}.jsonl"
    path.write_bytes(jsonl([{**template, "id": f"item-{n}", "sentence_with_positions": long_sentence}
                            for n in range(count)]))
    tracemalloc.start()
    try:
        import_dataset(subtask="commas", name=f"n{count}", inputs=SourceFile(path.name, path=str(path)))
        return tracemalloc.get_traced_memory()[1], path.stat().st_size
    finally:
        tracemalloc.stop()


def test_the_memory_of_an_import_does_not_grow_with_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(importing, "CHUNK_LINES", 250)
    (small_peak, small_size), (large_peak, large_size) = import_peak_bytes(tmp_path, 500), import_peak_bytes(tmp_path, 4000)
    # What grows is the set of ids seen (a hundred bytes or so per item), not the file's lines.
    assert large_peak - small_peak < (large_size - small_size) / 5, (small_peak, large_peak, large_size)


@override_settings(POLIS_MAX_UPLOAD_BYTES=10_000)
def test_the_upload_page_states_its_limit_and_refuses_a_larger_file_before_reading_it():
    client = client_of(make_user("organizer"))
    page = client.get(reverse("organizer_import")).content.decode()
    assert "The largest file this page takes is 9.8\xa0KB" in page
    assert 'data-max-bytes="10000"' in page
    big = SimpleUploadedFile("in.jsonl", jsonl(sample_records("commas", 1)) * 200)
    response = client.post(reverse("organizer_import"), {"name": "big", "subtask": "commas", "inputs": big})
    assert response.status_code == 413
    assert "The largest file this page takes is 9.8\xa0KB" in response.content.decode()
    assert not Dataset.objects.exists()
    dataset = make_queue("commas").dataset
    big = SimpleUploadedFile("gold.jsonl", jsonl(sample_records("commas", 1)) * 200)
    response = client.post(reverse("organizer_import_gold", args=[dataset.pk]), {"gold": big})
    assert response.status_code == 413


@override_settings(POLIS_MAX_UPLOAD_BYTES=10_000)
def test_the_training_and_control_pool_upload_and_the_accounts_csv_refuse_a_larger_file():
    organizer = make_user("organizer")
    client = client_of(organizer)
    dataset = make_queue("commas").dataset
    page = client.get(reverse("organizer_training", args=[dataset.pk])).content.decode()
    assert 'data-max-bytes="10000"' in page and "upload_limit.js" in page
    big = jsonl(sample_records("commas", 1)) * 200
    response = client.post(reverse("organizer_training", args=[dataset.pk]), {
        "action": "pool", "kind": "training",
        "inputs": SimpleUploadedFile("in.jsonl", big), "gold": SimpleUploadedFile("gold.jsonl", big),
    })
    assert response.status_code == 413
    assert "The largest file this page takes is 9.8\xa0KB" in response.content.decode()
    assert not Dataset.objects.filter(pool_of=dataset).exists()
    users_before = set(User.objects.values_list("username", flat=True))
    csv = "".join(f"annotator-{n},\n" for n in range(2000)).encode()
    response = client.post(reverse("organizer_accounts"), {
        "action": "csv", "role": "annotator", "accounts": SimpleUploadedFile("a.csv", csv)})
    assert response.status_code == 413
    assert set(User.objects.values_list("username", flat=True)) == users_before


@override_settings(POLIS_MAX_UPLOAD_BYTES=10_000)
def test_every_url_refuses_a_body_over_the_upload_limit_before_reading_it():
    """One check for every page and endpoint, those of the URL configuration to come included:
    a body announced larger than the limit is a 413 (JSON under /api/), never read."""
    import re

    from django.urls import get_resolver

    from tests.security.test_permission_matrix import every_url

    client = client_of(make_user("organizer"))
    wrong = []
    for name, form, _ in every_url(get_resolver()):
        url = "/" + re.sub(r"%\((\w+)\)s", "1", form)
        for method in ("post", "put", "patch"):
            response = getattr(client, method)(url, b"x" * 100, content_type="application/octet-stream",
                                               CONTENT_LENGTH="10001")
            if response.status_code != 413 or response["Connection"] != "close":
                wrong.append(f"{method} {url} ({name}): {response.status_code}")
            elif url.startswith("/api/") and "The largest file" not in response.json()["detail"]:
                wrong.append(f"{method} {url} ({name}): {response.content[:100]}")
    assert not wrong, "\n".join(wrong)
    assert client.post("/api/token/", b"x" * 100, content_type="application/octet-stream",
                       CONTENT_LENGTH="10000").status_code != 413


def test_a_nul_in_an_annotator_name_or_any_parameter_is_a_400_naming_it():
    """The five places a NUL in an annotator's name was a 500 (PostgreSQL refuses it in a query),
    and any other parameter: refused before a view reads it, nothing changed."""
    queue = make_queue("wsd")
    dataset, annotator = queue.dataset, queue.annotator
    organizer = client_of(make_user("organizer"))
    pages = [
        organizer.get(f"/organize/{dataset.pk}/export/a%00b/"),
        organizer.get(f"/organize/{dataset.pk}/exports/", {"source": "annotator:a\x00b"}),
        organizer.post(f"/organize/{dataset.pk}/training/", {"action": "retry", "annotator": "a\x00b"}),
        organizer.post(f"/organize/{dataset.pk}/training/", {"action": "release", "annotator": "a\x00b"}),
    ]
    for response in pages:
        assert response.status_code == 400, response
        assert "U+0000" in response.content.decode()
    # An id posted with a NUL (posted_object) is refused too.
    response = organizer.post(reverse("organizer_accounts"), {"action": "deactivate", "user": f"{annotator.pk}\x00"})
    assert response.status_code == 400
    assert "annotator: holds the character U+0000" in pages[3].content.decode()
    response = organizer.get(f"/api/datasets/{dataset.pk}/export", {"source": "annotator:a\x00b"})
    assert response.status_code == 400
    assert response.json()["problems"] == ["source: holds the character U+0000, which no name or id holds."]
    response = queue.client.get(reverse("api_annotations"), {"dataset": f"{dataset.pk}\x00"})
    assert response.status_code == 400
    annotator.refresh_from_db()
    assert annotator.is_active
    # The same names without the NUL are answered as before.
    assert organizer.get(f"/organize/{dataset.pk}/export/ab/").status_code == 404
    assert organizer.post(f"/organize/{dataset.pk}/training/", {"action": "retry", "annotator": "ab"}).status_code == 404
