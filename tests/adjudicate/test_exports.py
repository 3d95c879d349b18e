"""The exports that use adjudications: the adjudicated source, majority filled from it, withdrawn
items listed by every source, and the all export's adjudication column (command, page, API)."""

import csv
import io
import json
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.adjudicate.services import save_decision
from annotation.core.errors import NothingToExport
from annotation.datasets.organizing import withdraw_item
from annotation.models import Flag
from annotation.results import exporting
from tests.adjudicate.conftest import person, submit, wsd_answered
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def validated(path, inputs_path) -> None:
    """The file passes `python -m scoring validate --partial --inputs`."""
    checked = subprocess.run([sys.executable, "-m", "scoring", "validate", "wsd", str(path), "--partial", "--inputs",
                              str(inputs_path)], cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def inputs_file(answered, tmp_path):
    path = tmp_path / "inputs.jsonl"
    path.write_bytes(exporting.jsonl_bytes([item.payload for item in answered.items]))
    return path


@pytest.fixture
def cases():
    """wsd-1 settled (B), wsd-2 agreed (C), wsd-3 open, wsd-4 stale, wsd-5 not ready, wsd-6
    nobody answered, wsd-7 withdrawn."""
    adjudicator = person("adjudicator")
    answered = wsd_answered([["A", "B"], ["C", "C"], ["A", "B"], ["A", "B"], ["D", None], [None, None], ["A", "A"]])
    settled, _agreed, _open, stale, _waiting, _nobody, withdrawn = answered.items
    for item in (settled, stale):
        save_decision(item=item, adjudicator=adjudicator, source="edited", answer={"answer": "B"}, based_on_version=0)
    submit(answered.dataset, answered.annotators[0], stale, {"answer": "D"})
    withdraw_item(withdrawn, make_user("organizer"), "broken")
    return answered


def test_the_adjudicated_export_takes_agreed_and_decided_answers_and_says_it_is_incomplete(cases, tmp_path, capsys):
    out = tmp_path / "adjudicated.jsonl"
    call_command("export_submission", cases.dataset.name, "--source", "adjudicated", "-o", str(out))
    validated(out, inputs_file(cases, tmp_path))
    assert [json.loads(line) for line in out.read_text().splitlines()] == [
        {"id": "wsd-1", "answer": "B"}, {"id": "wsd-2", "answer": "C"}]
    captured = capsys.readouterr()
    assert "2 records" in captured.out and "5 items left out" in captured.out and "incomplete" in captured.out
    assert [line for line in captured.err.splitlines() if line.startswith("left out")] == [
        "left out: wsd-3: open", "left out: wsd-4: stale", "left out: wsd-5: not ready",
        "left out: wsd-6: no answer", "left out: wsd-7: withdrawn"]


def test_a_complete_adjudicated_export_says_so(tmp_path, capsys):
    answered = wsd_answered([["C", "C"], ["A", "A"]])
    withdraw_item(answered.items[1], make_user("organizer"), "broken")
    export = exporting.build_export(answered.dataset, "adjudicated")
    assert export.complete and export.left_out == [("wsd-2", "withdrawn")]
    call_command("export_submission", answered.dataset.name, "--source", "adjudicated", "-o", str(tmp_path / "a.jsonl"))
    assert "incomplete" not in capsys.readouterr().out


def test_majority_filled_from_adjudicated_lists_the_filled_items(cases, tmp_path, capsys):
    out = tmp_path / "majority.jsonl"
    call_command("export_submission", cases.dataset.name, "--source", "majority", "--fill", "adjudicated", "-o", str(out))
    validated(out, inputs_file(cases, tmp_path))
    assert [json.loads(line) for line in out.read_text().splitlines()] == [
        {"id": "wsd-1", "answer": "B"}, {"id": "wsd-2", "answer": "C"}]
    captured = capsys.readouterr()
    assert "filled from adjudicated: wsd-1: no majority" in captured.err
    assert "left out: wsd-3: no majority" in captured.err and "left out: wsd-7: withdrawn" in captured.err
    assert "1 filled from adjudicated" in captured.out
    export = exporting.build_export(cases.dataset, "majority", fill="adjudicated")
    assert export.filename.endswith(".majority-filled-adjudicated.submission.jsonl")
    assert "wsd-1\tfilled (no majority)\n" in export.left_out_bytes().decode()
    unfilled = exporting.build_export(cases.dataset, "majority")
    assert unfilled.n_records == 1 and not unfilled.filled and ("wsd-1", "no majority") in unfilled.left_out


def test_fill_is_refused_for_other_sources(cases, tmp_path, capsys):
    for source in ("adjudicated", "all"):
        with pytest.raises(CommandError, match="nothing written"):
            call_command("export_submission", cases.dataset.name, "--source", source, "--fill", "adjudicated",
                         "-o", str(tmp_path / "out.jsonl"))
    assert "only majority can be filled" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_withdrawn_items_are_in_no_export_and_listed_by_every_source(cases):
    for source in ("annotator:" + cases.annotators[0].username, "majority", "adjudicated", "all"):
        export = exporting.build_export(cases.dataset, source)
        assert ("wsd-7", "withdrawn") in export.left_out, source
        assert b'"wsd-7"' not in export.data, source


def test_the_all_export_gives_each_answers_adjudication_source(cases, tmp_path):
    jsonl, table = tmp_path / "all.jsonl", tmp_path / "all.csv"
    call_command("export_submission", cases.dataset.name, "--source", "all", "-o", str(jsonl))
    call_command("export_submission", cases.dataset.name, "--source", "all", "--format", "csv", "-o", str(table))
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    assert {record["id"]: record["adjudication"] for record in records} == {
        "wsd-1": "edited", "wsd-2": None, "wsd-3": None, "wsd-4": "edited", "wsd-5": None}
    assert {row["id"]: row["adjudication"] for row in rows} == {
        "wsd-1": "edited", "wsd-2": "", "wsd-3": "", "wsd-4": "edited", "wsd-5": ""}


def test_all_answer_records_run_the_same_queries_at_two_sizes(django_assert_num_queries):
    for answers in ([["A", "B"]], [["A", "B"], ["C", "C"], ["D", "A"], ["B", "B"]] * 3):
        answered = wsd_answered(answers)
        save_decision(item=answered.items[0], adjudicator=person("adjudicator"), source="edited",
                      answer={"answer": "B"}, based_on_version=0)
        with django_assert_num_queries(4):
            assert len(list(exporting.all_answer_records(answered.dataset))) == 2 * len(answers)


def test_the_page_and_the_api_give_the_new_variants_to_organizers_only(cases, client):
    page, api = reverse("organizer_exports", args=[cases.dataset.pk]), reverse("api_dataset_export", args=[cases.dataset.pk])
    variants = ({"source": "adjudicated"}, {"source": "majority", "fill": "adjudicated"})
    for role in ("annotator", "adjudicator"):
        client.force_login(make_user(role))
        for variant in variants:
            assert client.get(page, variant).status_code == 403
            assert client.get(api, variant).status_code == 403
    client.force_login(make_user("organizer"))
    html = client.get(page).content.decode()
    assert "fill=adjudicated" in html and "majority filled with adjudications" in html and "incomplete" in html
    download = client.get(page, {"source": "adjudicated"})
    assert b"".join(download.streaming_content) == exporting.build_export(cases.dataset, "adjudicated").data
    assert (download["X-Export-Complete"], download["X-Export-Left-Out"]) == ("false", "5")
    filled = client.get(api, {"source": "majority", "fill": "adjudicated"})
    assert filled["X-Export-Filled"] == "1" and b'"wsd-1"' in b"".join(filled.streaming_content)
    listed = {(entry["source"], entry["fill"]): entry for entry in client.get(api).json()["sources"]}
    assert (listed[("adjudicated", None)]["n_records"], listed[("adjudicated", None)]["complete"]) == (2, False)
    assert (listed[("majority", "adjudicated")]["n_records"], listed[("majority", None)]["n_records"]) == (2, 1)
    assert listed[("all", None)]["n_left_out"] == 1
    refused = client.get(api, {"source": "all", "fill": "adjudicated"})
    assert refused.status_code == 422 and refused.json()["problems"]


def test_leaving_an_annotator_out_of_the_adjudicated_source(cases):
    """Without the first annotator: decisions stay, a stale one stays out, an open disagreement
    that was theirs alone takes the others' answer unless it is flagged, and an item only they
    answered has no answer."""
    first = cases.annotators[0].username
    export = exporting.build_export(cases.dataset, "adjudicated", excluded=[first])
    assert [json.loads(line) for line in export.data.decode().splitlines()] == [
        {"id": "wsd-1", "answer": "B"}, {"id": "wsd-2", "answer": "C"}, {"id": "wsd-3", "answer": "B"}]
    assert export.left_out == [("wsd-4", "stale"), ("wsd-5", "no answer"), ("wsd-6", "no answer"), ("wsd-7", "withdrawn")]
    assert export.excluded == [first]
    Flag.objects.create(item=cases.items[2], raised_by=cases.annotators[1], comment="ambiguous")
    flagged = exporting.build_export(cases.dataset, "adjudicated", excluded=[first])
    assert ("wsd-3", "open") in flagged.left_out and b'"wsd-3"' not in flagged.data
    with pytest.raises(NothingToExport):  # one annotator left: every item has one answer, no majority
        exporting.build_export(cases.dataset, "majority", excluded=[first])
