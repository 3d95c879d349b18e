"""Exports of every source (annotator:NAME, majority, all): command, page and API."""

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

from annotation.datasets.assigning import assign
from annotation.models import Annotation
from annotation.results import exporting
from scoring.subtasks import get_subtask
from tests.factories import make_user
from tests.organizer.conftest import import_sample, sample_files, submit_answers

pytestmark = pytest.mark.django_db


def scoring(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *map(str, args)], cwd=settings.BASE_DIR,
                          capture_output=True, text=True, timeout=120)


def answered_dataset(subtask: str):
    """Three annotators on every item: the first answers all, the second every 2nd item, the
    third every 3rd, so some items have one answer only (no majority)."""
    dataset = import_sample(subtask)
    annotators = [make_user(username=f"{subtask}-{name}") for name in ("ala", "ola", "ela")]
    assign(dataset, annotators, 3)
    for every, annotator in zip((1, 2, 3), annotators):
        submit_answers(dataset, annotator, every=every)
    return dataset, annotators


def read_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_source_exports_validates_and_majority_equals_the_scorers(subtask, tmp_path, capsys):
    dataset, annotators = answered_dataset(subtask)
    inputs, _gold = sample_files(subtask)
    annotator_files = []
    for annotator in annotators:
        out = tmp_path / f"{annotator.username}.jsonl"
        call_command("export_submission", dataset.name, "--source", f"annotator:{annotator.username}", "-o", str(out))
        annotator_files.append(out)
    majority = tmp_path / "majority.jsonl"
    call_command("export_submission", dataset.name, "--source", "majority", "-o", str(majority))
    for path in [*annotator_files, majority]:
        checked = scoring("validate", subtask, path, "--partial", "--inputs", inputs)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert all(list(line) == ["id", *get_subtask(subtask).answer_fields] for line in read_lines(path))

    by_scorer = tmp_path / "by-scorer.jsonl"
    result = scoring("majority", subtask, "--inputs", inputs, "--pred", *annotator_files, "-o", by_scorer)
    assert result.returncode == 0, result.stdout + result.stderr
    assert majority.read_bytes() == by_scorer.read_bytes()
    export = exporting.build_export(dataset, "majority")
    assert export.left_out and {reason for _id, reason in export.left_out} == {"one answer"}
    assert export.n_records + len(export.left_out) == dataset.items.count()
    err = capsys.readouterr().err
    assert err.count(": one answer") == len(export.left_out)

    # The Dawid–Skene source is `python -m scoring dawid-skene` of the same files, byte for byte.
    dawid_skene, by_scorer = tmp_path / "dawid-skene.jsonl", tmp_path / "ds-by-scorer.jsonl"
    result = scoring("dawid-skene", subtask, "--inputs", inputs, "--pred", *annotator_files, "-o", by_scorer)
    if subtask in ("numerals", "discourse"):
        assert result.returncode == 2 and "specific to each item" in result.stderr
        capsys.readouterr()
        with pytest.raises(CommandError, match="nothing written"):
            call_command("export_submission", dataset.name, "--source", "dawid-skene", "-o", str(dawid_skene))
        assert "source: the Dawid–Skene source is not offered for" in capsys.readouterr().err
        assert not dawid_skene.exists()
        return
    call_command("export_submission", dataset.name, "--source", "dawid-skene", "-o", str(dawid_skene))
    assert result.returncode == 0, result.stdout + result.stderr
    assert dawid_skene.read_bytes() == by_scorer.read_bytes()
    assert scoring("validate", subtask, dawid_skene, "--partial", "--inputs", inputs).returncode == 0


def test_the_all_export_has_one_record_per_submitted_answer_in_jsonl_and_csv(tmp_path):
    dataset, annotators = answered_dataset("commas")
    Annotation.objects.create(item=dataset.items.order_by("ordinal")[1], annotator=annotators[1], answer={}, status="draft")
    submitted = Annotation.objects.filter(item__dataset=dataset, status="submitted").count()
    jsonl, table = tmp_path / "all.jsonl", tmp_path / "all.csv"
    call_command("export_submission", dataset.name, "--source", "all", "-o", str(jsonl))
    call_command("export_submission", dataset.name, "--source", "all", "--format", "csv", "-o", str(table))
    records = read_lines(jsonl)
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    assert len(records) == len(rows) == submitted
    assert list(records[0]) == list(exporting.ALL_FIELDS) == list(rows[0])
    first = records[0]
    assert first["annotator"] == annotators[0].username and set(first["answer"]) == {"commas", "optional"}
    assert (first["version"], first["revisions"], first["active_ms"], first["flags"]) == (1, 0, 1000, 0)
    assert json.loads(rows[0]["answer"]) == first["answer"]


def test_the_all_csv_writes_ids_and_names_a_spreadsheet_would_run_as_text_and_the_jsonl_as_stored():
    """The CSV is for spreadsheets: an item id or a user name starting with =, +, - or @ gets an
    apostrophe before it, as in the report's CSV; the JSONL (what programs read) is unchanged."""
    dataset, annotators = answered_dataset("commas")
    annotators[0].username = "=HYPERLINK(\"http://example.org/\")"
    annotators[0].save()
    item = dataset.items.order_by("ordinal").first()
    item.external_id = "+1-2"
    item.save()
    jsonl = exporting.build_export(dataset, "all", "jsonl").data.decode().splitlines()
    table = exporting.build_export(dataset, "all", "csv").data.decode()
    rows = list(csv.DictReader(io.StringIO(table)))
    assert len(rows) == len(jsonl)
    assert not [cell for row in rows for cell in row.values() if cell[:1] in ("=", "+", "-", "@")]
    first = json.loads(jsonl[0])
    assert (first["id"], first["annotator"]) == ("+1-2", annotators[0].username)
    assert (rows[0]["id"], rows[0]["annotator"]) == ("'+1-2", "'" + annotators[0].username)
    assert json.loads(rows[0]["answer"]) == first["answer"]
    assert rows[0]["version"] == "1"  # numbers as they are


def test_unknown_source_csv_submission_and_empty_exports_are_refused_and_write_nothing(tmp_path, capsys):
    dataset = import_sample("wsd")
    out = tmp_path / "out.jsonl"
    for source, options in (("nobody", []), ("annotator:", []), ("majority", ["--format", "csv"]), ("majority", []),
                            ("all", []), ("annotator:ghost", [])):
        with pytest.raises(CommandError, match="nothing written"):
            call_command("export_submission", dataset.name, "--source", source, *options, "-o", str(out))
    err = capsys.readouterr().err
    assert "has nothing in it" in err and "unknown source nobody" in err and "no user named ghost" in err
    assert list(tmp_path.iterdir()) == []


def test_a_failure_mid_export_leaves_no_half_file(tmp_path, monkeypatch):
    dataset, _annotators = answered_dataset("commas")
    monkeypatch.setattr(exporting, "CHUNK_BYTES", 100)

    def failing_chunks(export):
        pieces = [export.data[start:start + 100] for start in range(0, len(export.data), 100)]
        yield pieces[0]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(exporting.Export, "chunks", failing_chunks)
    out = tmp_path / "all.jsonl"
    out.write_text("previous\n")
    with pytest.raises(CommandError, match="cannot write"):
        call_command("export_submission", dataset.name, "--source", "all", "-o", str(out))
    assert [path.name for path in tmp_path.iterdir()] == ["all.jsonl"]
    assert out.read_text() == "previous\n"


def test_the_export_page_lists_every_source_and_streams_downloads(client, django_assert_max_num_queries):
    dataset, annotators = answered_dataset("numerals")
    client.force_login(make_user("organizer"))
    url = reverse("organizer_exports", args=[dataset.pk])
    with django_assert_max_num_queries(20):
        page = client.get(url)
    html = page.content.decode()
    for annotator in annotators:
        assert f"annotator:{annotator.username}" in html
    assert "majority" in html and "file_format=csv" in html

    download = client.get(url, {"source": f"annotator:{annotators[1].username}"})
    assert download.streaming and download["Content-Disposition"].endswith('.submission.jsonl"')
    lines = b"".join(download.streaming_content).decode().splitlines()
    assert len(lines) == Annotation.objects.filter(annotator=annotators[1], status="submitted").count()
    left_out = client.get(url, {"source": f"annotator:{annotators[1].username}", "left_out": "1"})
    assert b"".join(left_out.streaming_content).decode().count("\tunanswered\n") == dataset.items.count() - len(lines)
    table = client.get(url, {"source": "all", "file_format": "csv"})
    assert table["Content-Disposition"].endswith('.all.answers.csv"')
    refused = client.get(url, {"source": "bogus"})
    assert refused.status_code == 422 and "unknown source bogus" in refused.content.decode()


def test_the_export_page_runs_the_same_queries_at_two_sizes(client, django_assert_max_num_queries):
    small = import_sample("wsd", name="small")
    large = import_sample("commas", name="large")
    for dataset, size in ((small, 2), (large, 5)):
        annotators = [make_user() for _ in range(size)]
        assign(dataset, annotators, 2)
        for annotator in annotators:
            submit_answers(dataset, annotator)
    client.force_login(make_user("organizer"))
    for dataset in (small, large):
        with django_assert_max_num_queries(20):
            assert client.get(reverse("organizer_exports", args=[dataset.pk])).status_code == 200


def test_the_api_streams_an_export_to_organizers_only(client):
    dataset, annotators = answered_dataset("coreference")
    url = reverse("api_dataset_export", args=[dataset.pk])
    for role in ("annotator", "adjudicator"):
        client.force_login(make_user(role))
        assert client.get(url, {"source": "majority"}).status_code == 403
    client.force_login(annotators[0])
    assert client.get(url, {"source": "all"}).status_code == 403
    client.force_login(make_user("organizer"))
    listed = client.get(url).json()["sources"]
    assert [entry["source"] for entry in listed] == [*sorted(f"annotator:{a.username}" for a in annotators), "majority", "majority", "dawid-skene", "adjudicated", "all"]
    assert listed[-1]["formats"] == ["jsonl", "csv"]
    response = client.get(url, {"source": "majority"})
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == exporting.build_export(dataset, "majority").data
    assert client.get(url, {"source": "all", "file_format": "csv"})["Content-Type"].startswith("text/csv")
    refused = client.get(url, {"source": "majority", "file_format": "csv"})
    assert refused.status_code == 422 and refused.json()["problems"]
    assert client.get(reverse("api_schema")).content.count(b"/export") >= 1
