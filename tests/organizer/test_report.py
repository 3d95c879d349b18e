"""The human-baseline report: its JSON keys and figures on a hand-made dataset, equality with
`python -m scoring score --ci` on the exported files, the synthetic banner, the campaign
table, plots, model uploads, the command and who may see it."""

import csv
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.answers.normalised import normalised_answer
from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.assigning import assign
from annotation.models import Annotation, Campaign, ModelSubmission
from annotation.results.agreement import agreement_report
from annotation.results.exporting import build_export, build_submission, jsonl_bytes
from annotation.results.formats import percent, report_file
from annotation.results.plots import report_plots
from annotation.results.report import campaign_report, dataset_report
from annotation.results.services import create_campaign, upload_model_submission
from tests.factories import assign_in_order, make_dataset, make_user
from tests.organizer.conftest import import_sample, sample_files, submit_answers

pytestmark = pytest.mark.django_db

REPORT_KEYS = {
    "dataset", "dataset_id", "subtask", "subtask_title", "computed_at", "frozen", "gold_synthetic", "banner",
    "n_items", "sample", "n_gold", "n_withdrawn", "resamples", "seed", "confidence", "sources", "comparisons", "time", "agreement", "procedure",
    "excluded", "test_rounds", "complete_items", "mean_annotator", "best_annotator", "notes", "commands",
    "dawid_skene", "gold_audit", "item_difficulty",
}
SOURCE_KEYS = {
    "source", "kind", "name", "scored_on", "available", "score", "intervals", "n_scored", "n_missing",
    "n_answered", "left_out", "coverage", "answer_faults", "metrics", "secondary", "breakdown", "score_audited",
    "n_scored_audited",
}
CAMPAIGN_KEYS = {
    "campaign", "campaign_id", "computed_at", "resamples", "seed", "confidence", "gold_synthetic", "columns",
    "rows", "footnotes", "notes", "datasets", "exclude_below_control", "test_rounds", "human_source",
}


def wsd_record(number: int) -> dict:
    return {
        "id": f"w{number}",
        "reference_sentence": "Otworzył [[TARGET]]zamek[[/TARGET]].",
        "candidates": {label: f"Zdanie {label} [[TARGET]]zamek[[/TARGET]]." for label in "ABCD"},
    }


def answer(dataset, annotator, external_id: str, label: str, active_ms: int) -> None:
    Annotation.objects.create(
        item=dataset.items.get(external_id=external_id), annotator=annotator, answer={"answer": label},
        status=Annotation.Status.SUBMITTED, submitted_at=timezone.now(), active_ms=active_ms,
        normalised_answer=normalised_answer("wsd", {"answer": label}),
    )


@pytest.fixture
def wsd_dataset():
    """Gold A, B, C, D; ann1 answers A, B, D on the first three (the fourth left), ann2 all four right."""
    records = [wsd_record(number) for number in range(1, 5)]
    gold = [{"id": record["id"], "answer": label} for record, label in zip(records, "ABCD")]
    dataset = make_dataset("wsd", records, gold=gold, name="wsd-tiny")
    ann1, ann2 = make_user("annotator", "ann1"), make_user("annotator", "ann2")
    for annotator in (ann1, ann2):
        assign_in_order(dataset, annotator)
    for external_id, label, seconds in (("w1", "A", 10), ("w2", "B", 20), ("w3", "D", 40)):
        answer(dataset, ann1, external_id, label, seconds * 1000)
    for external_id, label in zip(["w1", "w2", "w3", "w4"], "ABCD"):
        answer(dataset, ann2, external_id, label, 30_000)
    return dataset


def model_file(labels: str) -> SourceFile:
    return SourceFile("model.jsonl", jsonl_bytes([{"id": f"w{n}", "answer": label} for n, label in enumerate(labels, 1)]))


def test_report_keys_and_figures_on_a_hand_made_dataset(wsd_dataset):
    upload_model_submission(dataset=wsd_dataset, name="m", submission=model_file("ABCC"))
    report = dataset_report(wsd_dataset, resamples=200, seed=3, test_rounds=100)
    assert set(report) == REPORT_KEYS
    assert (report["gold_synthetic"], report["banner"], report["frozen"]) == (False, None, False)
    assert (report["n_gold"], report["resamples"], report["seed"]) == (4, 200, 3)
    rows = {row["source"]: row for row in report["sources"]}
    assert list(rows) == ["annotator:ann1", "annotator:ann2", "majority", "adjudicated", "majority_filled", "dawid_skene",
                          "model:m"]
    ann1 = rows["annotator:ann1"]
    assert set(ann1) == SOURCE_KEYS
    # Scored on its 3 answered items: A and B right (F1 1), C missed (0), D wrong (0): macro-F1 0.5.
    assert ann1["score"] == 0.5
    assert ann1["secondary"]["accuracy"] == pytest.approx(2 / 3)
    assert (ann1["n_scored"], ann1["n_missing"], ann1["coverage"], ann1["scored_on"]) == (3, 0, 0.75, "answered items")
    assert ann1["breakdown"]["confusion"]["rows"]["C"] == {"A": 0, "B": 0, "C": 0, "D": 1, "none": 0}
    assert ann1["breakdown"]["per_label"]["D"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    assert "scores a label absent" in ann1["breakdown"]["note"] or "F1 0" in ann1["breakdown"]["note"]
    low, high = ann1["intervals"]["score"]
    assert 0 <= low <= 0.5 <= high <= 1
    assert rows["annotator:ann2"]["score"] == 1.0
    # All correct, yet a resample without some label scores it 0 (macro-F1 over A-D): the note's point.
    assert rows["annotator:ann2"]["intervals"]["score"][1] == 1.0
    model = rows["model:m"]
    # A 1, B 1, C: precision 1/2 recall 1 -> 2/3, D 0: (1 + 1 + 2/3) / 4.
    assert model["score"] == pytest.approx((2 + 2 / 3) / 4)
    assert (model["scored_on"], model["coverage"]) == ("all gold items", 1.0)
    # The complete items: w1-w3 (both assigned annotators submitted); w4 waits for ann1.
    assert report["complete_items"] == ["w1", "w2", "w3"]
    majority = rows["majority"]  # w1 A, w2 B (right); w3 split (D, C): no majority, missing
    assert (majority["score"], majority["n_scored"], majority["n_missing"], majority["coverage"]) == (0.5, 3, 1, 0.75)
    assert majority["scored_on"] == "complete items"
    assert majority["left_out"] == {"no majority": 1, "one answer": 1}
    # w1 and w2 agreed (A, B: right); w3 a disagreement nobody settled: missing.
    for kind in ("adjudicated", "majority_filled"):
        assert rows[kind]["available"] and rows[kind]["score"] == 0.5
        assert (rows[kind]["n_scored"], rows[kind]["n_missing"], rows[kind]["coverage"]) == (3, 1, 0.75)
    assert rows["adjudicated"]["left_out"] == {"open": 1, "not ready": 1}
    pooled = next(c for c in report["comparisons"] if c["human"] == "majority")
    assert (pooled["n_scored"], pooled["test_rounds"], pooled["mcnemar_figure"]) == (3, 100, "accuracy")
    # On w1-w3 the model answers A, B, C: right where the majority is, and on w3 where it has none.
    assert (pooled["n_a_only"], pooled["n_b_only"], pooled["mcnemar_p"]) == (0, 1, 1.0)
    assert "On 3 items, the majority of 2 annotators scored 50.0%" in pooled["quote"]["sentence"]
    assert report["best_annotator"]["name"] == "ann2" and "after" in report["best_annotator"]["note"]
    group = report["mean_annotator"]
    assert (group["n_annotators"], group["mean"], group["min"], group["max"]) == (2, 0.75, 0.5, 1.0)
    assert group["ci_low"] <= group["mean"] <= group["ci_high"] and "m" in group["models"]
    comparison = next(c for c in report["comparisons"] if c["human"] == "annotator:ann1")
    assert comparison["only_answered"] and comparison["n_scored"] == 3
    assert comparison["diff"] == pytest.approx(comparison["score_human"] - comparison["score_model"])
    time = report["time"]
    ann1_time = time["per_annotator"][0]
    assert (ann1_time["annotator"], ann1_time["median_s"], ann1_time["q1_s"], ann1_time["q3_s"]) == ("ann1", 20.0, 15.0, 30.0)
    assert time["total_hours"] == pytest.approx((70 + 120) / 3600)
    assert report["agreement"] == agreement_report(wsd_dataset).figures  # the agreement page's figures
    json.dumps(report)  # every figure is a plain JSON value


def test_the_dawid_skene_source_and_accuracies_equal_the_scoring_cli(wsd_dataset, tmp_path):
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_bytes(jsonl_bytes([wsd_record(number) for number in range(1, 5)]))
    files = []
    for username in ("ann1", "ann2"):
        files.append(tmp_path / f"{username}.jsonl")
        files[-1].write_bytes(build_submission(wsd_dataset, User.objects.get(username=username)).to_bytes())
    completed = subprocess.run([sys.executable, "-m", "scoring", "dawid-skene", "wsd", "--inputs", str(inputs),
                                "--pred", *map(str, files), "-o", str(tmp_path / "ds.jsonl"), "--json"],
                               cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=120, check=True)
    printed = json.loads(completed.stdout)
    report = dataset_report(wsd_dataset, resamples=0, test_rounds=0)
    figures = report["dawid_skene"]
    assert figures["offered"] and figures["classes"] == ["A", "B", "C", "D"] == printed["classes"]
    assert figures["iterations"] == printed["iterations"] >= 1
    assert [row["accuracy"] for row in figures["annotators"]] == [row["accuracy"] for row in printed["annotators"]]
    assert [row["annotator"] for row in figures["annotators"]] == ["ann1", "ann2"]
    export = build_export(wsd_dataset, "dawid-skene")
    assert export.data == (tmp_path / "ds.jsonl").read_bytes()
    assert dict(export.left_out) == {"w4": "one answer"}
    row = next(row for row in report["sources"] if row["source"] == "dawid_skene")
    assert (row["scored_on"], row["n_scored"]) == ("complete items", 3)  # the pooled sources' complete items
    # The report's files list each annotator's estimated accuracy beside their row: for people
    # in percent with one decimal, whole in the csv.
    accuracy = figures["annotators"][0]["accuracy"]
    for fmt in ("md", "tex"):
        text = report_file(report, [], fmt)
        assert "estimated accuracy (Dawid–Skene)" in text or "estimated accuracy (Dawid--Skene)" in text
        assert f"& {percent(accuracy)}" in text or f"| {percent(accuracy)}" in text
    rows = list(csv.DictReader(io.StringIO(report_file(report, [], "csv"))))
    first = f"annotator:{figures['annotators'][0]['annotator']}"
    assert float(next(row for row in rows if row["source"] == first)["dawid_skene_accuracy"]) == accuracy
    page = organizer_client().get(reverse("organizer_agreement", args=[wsd_dataset.pk]))
    assert f"{figures['annotators'][1]['accuracy']:.3f}".replace(".", ",") in page.content.decode() or \
        f"{figures['annotators'][1]['accuracy']:.3f}" in page.content.decode()


def test_a_campaign_may_set_the_dawid_skene_source_beside_the_models(wsd_dataset):
    upload_model_submission(dataset=wsd_dataset, name="m", submission=model_file("ABCC"))
    campaign = create_campaign(name="test-DS", datasets=[wsd_dataset], human_source="dawid_skene")
    table = campaign_report(campaign, resamples=0, test_rounds=50)
    row = next(row for row in table["rows"] if row["subtask"] == "wsd")
    report = table["datasets"][0]
    source = next(row for row in report["sources"] if row["source"] == "dawid_skene")
    assert row["cells"]["human source"]["source"] == "dawid_skene"
    assert row["cells"]["human source"]["score"] == source["score"]
    assert row["cells"]["model:m"]["n_items"] == source["n_scored"] == 3
    assert "Dawid–Skene" in table["notes"]["human source"]
    client = organizer_client()
    assert client.get(reverse("organizer_campaign", args=[campaign.pk])).status_code == 200
    # The report page quotes the Dawid–Skene source beside the model, in the reader's language,
    # and lists each annotator's estimated accuracy.
    page = client.get(reverse("organizer_report", args=[wsd_dataset.pk]), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Na 3 pozycjach odpowiedzi modelu Dawida–Skene’a (anotatorów: 2)" in page
    assert 'id="dawid-skene"' in page and "Szacowana trafność (Dawid–Skene)" in page


def test_numerals_offer_no_dawid_skene_and_say_why():
    dataset = import_sample("numerals")
    report = dataset_report(dataset, resamples=0, test_rounds=0)
    assert report["dawid_skene"] == {"offered": False, "reason": report["dawid_skene"]["reason"]}
    assert "specific to each item" in report["dawid_skene"]["reason"]
    assert "dawid_skene" not in {row["source"] for row in report["sources"]}
    with pytest.raises(Refused) as refused:
        build_export(dataset, "dawid-skene")
    assert refused.value.problems[0].code == "dawid_skene_not_offered"
    page = organizer_client().get(reverse("organizer_agreement", args=[dataset.pk]))
    assert "Dawid" in page.content.decode() and agreement_report(dataset).dawid_skene is None


def test_intervals_repeat_with_the_same_seed(wsd_dataset):
    first = dataset_report(wsd_dataset, resamples=100, seed=5)
    again = dataset_report(wsd_dataset, resamples=100, seed=5)
    assert [row.get("intervals") for row in first["sources"]] == [row.get("intervals") for row in again["sources"]]


def scorer_cli(*arguments) -> dict:
    completed = subprocess.run([sys.executable, "-m", "scoring", *arguments, "--json"], cwd=settings.BASE_DIR,
                               capture_output=True, text=True, timeout=120, check=True)
    return json.loads(completed.stdout)


@pytest.mark.parametrize("subtask", ["commas", "discourse"])
def test_scores_equal_the_scoring_cli_on_the_exported_files(subtask, tmp_path):
    dataset = import_sample(subtask)
    annotator = make_user()
    assign(dataset, [annotator], 1)
    submit_answers(dataset, annotator, every=2)
    inputs, gold = sample_files(subtask)
    submission = build_submission(dataset, annotator)
    (tmp_path / "pred.jsonl").write_bytes(submission.to_bytes())
    report = dataset_report(dataset, resamples=1000, seed=7)
    expected = scorer_cli("score", subtask, "--gold", str(gold), "--pred", str(tmp_path / "pred.jsonl"),
                          "--ci", "1000", "--seed", "7", "--only-answered")
    assert report["sources"][0]["metrics"] == expected  # every digit
    assert report["gold_synthetic"] == ("SYNTHETIC" in gold.name)


def test_a_model_beside_a_human_equals_scoring_compare(wsd_dataset, tmp_path):
    upload_model_submission(dataset=wsd_dataset, name="m", submission=model_file("ABCC"))
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(jsonl_bytes([{"id": f"w{n}", "answer": label} for n, label in enumerate("ABCD", 1)]))
    human = tmp_path / "ann1.jsonl"
    human.write_bytes(build_submission(wsd_dataset, User.objects.get(username="ann1")).to_bytes())
    model = tmp_path / "m.jsonl"
    model.write_bytes(model_file("ABCC").data)
    report = dataset_report(wsd_dataset, resamples=300, seed=2)
    comparison = next(c for c in report["comparisons"] if c["human"] == "annotator:ann1")
    expected = scorer_cli("compare", "wsd", "--gold", str(gold), "--pred", str(human), "--pred", str(model),
                          "--ci", "300", "--seed", "2", "--only-answered")
    assert (comparison["score_human"], comparison["score_model"], comparison["diff"]) == (
        expected["score_a"], expected["score_b"], expected["diff"])
    assert comparison["diff_ci"] == [expected["diff_ci_low"], expected["diff_ci_high"]]


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def organizer_client() -> Client:
    client = Client()
    client.force_login(make_user("organizer"))
    return client


def test_synthetic_gold_carries_the_banner_everywhere_and_no_campaign_number(wsd_dataset):
    wsd_dataset.gold_synthetic = True
    wsd_dataset.save()
    real = import_sample("commas")
    annotator = make_user()
    assign(real, [annotator], 1)
    submit_answers(real, annotator, every=3)
    campaign = create_campaign(name="test-A", datasets=[wsd_dataset, real])
    client = organizer_client()
    page = client.get(reverse("organizer_report", args=[wsd_dataset.pk])).content.decode()
    assert "synthetic gold — not a human baseline" in page
    report_json = json.loads(client.get(reverse("organizer_report", args=[wsd_dataset.pk]) + "?format=json").content)
    assert report_json["gold_synthetic"] is True
    for fmt in ("md", "tex"):
        download = client.get(reverse("organizer_report", args=[wsd_dataset.pk]) + f"?format={fmt}").content.decode()
        assert ("synthetic gold --- not" if fmt == "tex" else "synthetic gold — not a human baseline") in download, fmt
    # The CSV is data: no banner row, a column says it.
    report_csv = list(csv.DictReader(io.StringIO(
        client.get(reverse("organizer_report", args=[wsd_dataset.pk]) + "?format=csv").content.decode())))
    assert report_csv and {row["gold_synthetic"] for row in report_csv} == {"true"}
    assert all(row["source"] and row["kind"] for row in report_csv)
    svg = client.get(reverse("organizer_report", args=[wsd_dataset.pk]) + "?plot=scores").content.decode()
    assert svg.count("synthetic gold — not a human baseline") >= 2  # drawn, and in the title
    table = campaign_report(campaign, resamples=50)
    assert set(table) == CAMPAIGN_KEYS
    rows = {row["subtask"]: row for row in table["rows"]}
    assert [row["subtask"] for row in table["rows"]] == ["morphosyntax", "numerals", "wsd", "coreference", "discourse", "commas"]
    assert set(rows["wsd"]["cells"].values()) == {None} and rows["wsd"]["footnote"] == 1
    assert "best annotator" not in rows["commas"]["cells"]  # chosen after the fact: the dataset report only
    # One annotator: no item has two answers, so no pooled source; the mean annotator is that one.
    assert rows["commas"]["cells"]["human source"] is None
    assert rows["commas"]["cells"]["mean annotator"]["score"] == 1.0
    campaign_page = client.get(reverse("organizer_campaign", args=[campaign.pk])).content.decode()
    assert "synthetic gold — not a human baseline" in campaign_page and "—&nbsp;[1]" not in campaign_page
    markdown = client.get(reverse("organizer_campaign", args=[campaign.pk]) + "?format=md").content.decode()
    wsd_line = next(line for line in markdown.splitlines() if line.startswith("| wsd "))
    assert "0." not in wsd_line and "— [1]" in wsd_line
    assert "[1] wsd-tiny (wsd): the gold of this dataset is synthetic" in markdown
    csv_text = client.get(reverse("organizer_campaign", args=[campaign.pk]) + "?format=csv").content.decode()
    campaign_rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert [row["subtask"] for row in campaign_rows][::len(table["columns"])] == list(rows)  # every row a cell: no banner
    assert all(row["score"] == "" and row["gold_synthetic"] == "true" for row in campaign_rows if row["subtask"] == "wsd")
    assert {row["gold_synthetic"] for row in campaign_rows if row["subtask"] == "commas"} == {"false"}
    tex = client.get(reverse("organizer_campaign", args=[campaign.pk]) + "?format=tex").content.decode()
    assert r"\toprule" in tex and r"\bottomrule" in tex and "--- [1]" in tex
    assert r"\par{\footnotesize synthetic gold --- not a human baseline" in tex


def test_plots_are_svg_with_text_alternatives_and_data_tables(wsd_dataset):
    upload_model_submission(dataset=wsd_dataset, name="m", submission=model_file("ABCC"))
    report = dataset_report(wsd_dataset, resamples=50)
    plots = report_plots(report)
    assert {plot.key for plot in plots} >= {"scores", "time", "confusion-annotator:ann1", "confusion-model:m"}
    for plot in plots:
        root = ElementTree.fromstring(plot.svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("role") == "img"
        assert root.find("{http://www.w3.org/2000/svg}title").text == plot.title
        assert root.find("{http://www.w3.org/2000/svg}desc").text
        assert "<script" not in plot.svg and "style=" not in plot.svg and "<style" not in plot.svg
        assert plot.rows and all(len(row) == len(plot.headers) for row in plot.rows)
    page = organizer_client().get(reverse("organizer_report", args=[wsd_dataset.pk])).content.decode()
    assert page.count('<figure class="plot"') == len(plots)
    assert "<figcaption>" in page and "annotator ann1: 50.0% [" in page
    svg = organizer_client().get(reverse("organizer_report", args=[wsd_dataset.pk]) + "?plot=scores")
    assert svg["Content-Type"].startswith("image/svg+xml") and b"<title>" in svg.content


def test_relation_confusions_plot_for_discourse():
    dataset = import_sample("discourse")
    annotator = make_user()
    assign(dataset, [annotator], 1)
    submit_answers(dataset, annotator)
    item = dataset.items.order_by("ordinal").first()
    annotation = Annotation.objects.get(item=item, annotator=annotator)
    units = annotation.answer["discourse_units"]
    dependent = next(unit for unit in units if unit["head"] is not None)
    dependent["relation"] = "Elaboration" if dependent["relation"] != "Elaboration" else "Contrast"
    annotation.save()
    report = dataset_report(dataset, resamples=20)
    pairs = report["sources"][0]["breakdown"]["relation_confusions"]
    assert pairs == [{"gold": next(u for u in item.gold.payload["discourse_units"] if u["du_id"] == dependent["du_id"])["relation"],
                      "predicted": dependent["relation"], "count": 1}]
    assert any(plot.key == "relations-annotator:" + annotator.username for plot in report_plots(report))


def test_a_model_uploaded_through_the_page_appears_in_report_plot_and_campaign(wsd_dataset):
    client = organizer_client()
    url = reverse("organizer_report", args=[wsd_dataset.pk])
    upload = SimpleUploadedFile("gpt.jsonl", model_file("ABCC").data)
    response = client.post(url, {"name": "gpt", "submission": upload})
    assert response.status_code == 302
    assert ModelSubmission.objects.get(dataset=wsd_dataset).name == "gpt"
    page = client.get(url).content.decode()
    assert "model gpt" in page and "model gpt: 66.7% [" in page  # the table and the plot's text alternative
    campaign = create_campaign(name="test-B", datasets=[wsd_dataset])
    table = client.get(reverse("organizer_campaign", args=[campaign.pk])).content.decode()
    # On the human source's complete items (w1-w3, answered A, B, C): macro-F1 (1 + 1 + 1 + 0) / 4.
    assert "model gpt" in table and "0.7500 [" in table


def test_a_bad_model_submission_is_refused_with_its_lines_and_nothing_stored(wsd_dataset):
    client = organizer_client()
    url = reverse("organizer_report", args=[wsd_dataset.pk])
    bad = b'{"id": "w1", "answer": "A"}\n{"id": "w2", "answer": "E"}\n'
    response = client.post(url, {"name": "bad", "submission": SimpleUploadedFile("bad.jsonl", bad)})
    assert response.status_code == 422
    page = response.content.decode()
    assert "bad.jsonl" in page and "<td>2</td>" in page
    assert not ModelSubmission.objects.exists()
    with pytest.raises(Refused) as refused:  # a partial file: validate (without --partial) wants every item
        upload_model_submission(dataset=wsd_dataset, name="part", submission=model_file("AB"))
    assert any("w3" in message or "missing" in message for message in refused.value.messages)
    upload_model_submission(dataset=wsd_dataset, name="same", submission=model_file("ABCD"))
    with pytest.raises(Refused):
        upload_model_submission(dataset=wsd_dataset, name="same", submission=model_file("ABCD"))
    assert ModelSubmission.objects.count() == 1


def test_a_campaign_has_one_dataset_per_subtask(wsd_dataset):
    other = make_dataset("wsd", [wsd_record(9)], name="wsd-other")
    with pytest.raises(Refused):
        create_campaign(name="two-wsd", datasets=[wsd_dataset, other])
    assert not Campaign.objects.exists()


def test_annotators_and_adjudicators_are_refused_on_reports_and_uploads(wsd_dataset):
    campaign = create_campaign(name="test-C", datasets=[wsd_dataset])
    for role in ("annotator", "adjudicator"):
        client = Client()
        client.force_login(make_user(role))
        for url in (reverse("organizer_report", args=[wsd_dataset.pk]), reverse("organizer_campaigns"),
                    reverse("organizer_campaign", args=[campaign.pk])):
            assert client.get(url).status_code == 403, (role, url)
        response = client.post(reverse("organizer_report", args=[wsd_dataset.pk]),
                               {"name": "x", "submission": SimpleUploadedFile("x.jsonl", model_file("ABCD").data)})
        assert response.status_code == 403
        for url in (f"/api/datasets/{wsd_dataset.pk}/report", f"/api/campaigns/{campaign.pk}/report"):
            assert client.get(url).status_code == 403, (role, url)
    assert not ModelSubmission.objects.exists()


def test_the_api_returns_the_report_json(wsd_dataset):
    campaign = create_campaign(name="test-D", datasets=[wsd_dataset])
    client = organizer_client()
    report = client.get(f"/api/datasets/{wsd_dataset.pk}/report?seed=4").json()
    # The stored report's keys, and the facts of its computation.
    assert set(report) == REPORT_KEYS | {"computation"} and report["seed"] == 4 and report["resamples"] == 1000
    assert set(report["computation"]) == {"computed_at", "current", "changes", "computing"}
    assert set(client.get(f"/api/campaigns/{campaign.pk}/report").json()) == CAMPAIGN_KEYS | {"computation"}
    assert client.get(f"/api/datasets/{wsd_dataset.pk}/report?seed=x").status_code == 400
    assert client.get("/api/campaigns/999999/report").status_code == 404


def test_the_command_prints_and_writes_every_format(wsd_dataset, tmp_path, capsys):
    create_campaign(name="test-E", datasets=[wsd_dataset])
    call_command("baseline_report", "wsd-tiny", "--format", "json", "--seed", "1")
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == REPORT_KEYS and printed["seed"] == 1
    for fmt in ("md", "csv", "tex"):
        call_command("baseline_report", "--campaign", "test-E", "--format", fmt, "-o", str(tmp_path / f"t.{fmt}"))
        assert "wsd" in (tmp_path / f"t.{fmt}").read_text()
    call_command("baseline_report", "wsd-tiny", "--format", "md", "-o", str(tmp_path / "r.md"))
    text = (tmp_path / "r.md").read_text()
    assert "annotator:ann1" in text and "## wsd-tiny: macro-F1 per source" in text
    # The plots are written beside the Markdown, which shows them.
    pictures = sorted(path.name for path in tmp_path.glob("r.*.svg"))
    assert "r.scores.svg" in pictures and "r.confusion-annotator-ann1.svg" in pictures
    assert all(f"]({name})" in text for name in pictures)
    assert ElementTree.parse(tmp_path / "r.scores.svg").getroot().tag.endswith("svg")
    with pytest.raises(CommandError):
        call_command("baseline_report", "no-such-dataset")


@pytest.mark.parametrize("n_items", [4, 60])
def test_the_report_page_runs_the_same_queries_at_two_sizes(n_items, django_assert_max_num_queries):
    records = [wsd_record(number) for number in range(1, n_items + 1)]
    dataset = make_dataset("wsd", records, gold=[{"id": r["id"], "answer": "ABCD"[i % 4]} for i, r in enumerate(records)])
    for username in ("q1", "q2"):
        annotator = make_user("annotator", username)
        assign_in_order(dataset, annotator)
        for record in records:
            answer(dataset, annotator, record["id"], "A", 5000)
    upload_model_submission(dataset=dataset, name="m", submission=SourceFile(
        "m.jsonl", jsonl_bytes([{"id": r["id"], "answer": "B"} for r in records])))
    client = organizer_client()
    # The first view computes the report (inline with the tests' immediate backend) ...
    with django_assert_max_num_queries(60):  # the same at both sizes: bounded
        assert client.get(reverse("organizer_report", args=[dataset.pk])).status_code == 200
    # ... the next ones serve the finished computation: the data version and the stored report.
    with django_assert_max_num_queries(16):
        assert client.get(reverse("organizer_report", args=[dataset.pk])).status_code == 200


def test_withdrawn_items_are_scored_for_no_one(wsd_dataset):
    wsd_dataset.items.filter(external_id="w4").update(withdrawn_at=timezone.now(), withdrawn_by=make_user("organizer"))
    report = dataset_report(wsd_dataset, resamples=20)
    assert (report["n_gold"], report["n_withdrawn"]) == (3, 1)
    rows = {row["source"]: row for row in report["sources"]}
    assert rows["annotator:ann2"]["n_scored"] == 3 and rows["annotator:ann2"]["score"] == 0.75  # D never in gold now


def test_csv_downloads_write_names_a_spreadsheet_would_run_as_text(wsd_dataset):
    """A dataset or model named like a formula (=, +, -, @) is a text cell, prefixed with an
    apostrophe, in the campaign's and the report's CSV."""
    wsd_dataset.name = '=HYPERLINK("http://example.org/","x")'
    wsd_dataset.save()
    upload_model_submission(dataset=wsd_dataset, name="=1+2", submission=model_file("ABCC"))
    upload_model_submission(dataset=wsd_dataset, name="@SUM(A1)", submission=model_file("ABCD"))
    campaign = create_campaign(name="-2+3", datasets=[wsd_dataset])
    client = organizer_client()
    downloads = [
        client.get(reverse("organizer_campaign", args=[campaign.pk]) + "?format=csv").content.decode(),
        client.get(reverse("organizer_report", args=[wsd_dataset.pk]) + "?format=csv").content.decode(),
    ]
    cells = [cell for text in downloads for row in csv.reader(io.StringIO(text)) for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@") and not is_number(cell)]
    assert "'" + wsd_dataset.name in cells
    # Numbers stay numbers.
    assert any(cell.replace(".", "", 1).isdigit() for cell in cells)
