"""Humans and models on the same items: a pilot in which three annotators answered 10% of a
dataset. The pooled sources are scored on their complete items, each model on exactly those,
with the paired tests; every figure is what `python -m scoring` prints on the downloads."""

import json
import shlex
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.models import Assignment, Campaign
from annotation.results.exporting import build_export, jsonl_bytes
from annotation.results.report import campaign_report, dataset_report, gold_file, inputs_filename, items_filename
from annotation.results.services import create_campaign, upload_model_submission
from tests.factories import make_dataset, make_user
from tests.organizer.test_report import answer, wsd_record

pytestmark = pytest.mark.django_db

N_ITEMS, N_ANSWERED = 50, 5
GOLD = "ABCD"


def gold_label(number: int) -> str:
    return GOLD[number % 4]


@pytest.fixture
def pilot():
    """50 wsd items; three annotators answered the first five (10%): on w1-w4 two of them are
    right, on w5 all three disagree. Model "all" answers every item right except w5 and w6;
    model "half" answers the odd items right and the even ones wrong."""
    records = [wsd_record(number) for number in range(1, N_ITEMS + 1)]
    gold = [{"id": record["id"], "answer": gold_label(number)} for number, record in enumerate(records, 1)]
    dataset = make_dataset("wsd", records, gold=gold, name="pilot")
    annotators = [make_user("annotator", f"p{index}") for index in range(3)]
    items = list(dataset.items.order_by("ordinal")[:N_ANSWERED])
    Assignment.objects.bulk_create(Assignment(dataset=dataset, item=item, annotator=annotator, position=position)
                                   for annotator in annotators for position, item in enumerate(items, 1))
    wrong = {"A": "B", "B": "C", "C": "D", "D": "A"}
    for number in range(1, N_ANSWERED + 1):
        right = gold_label(number)
        labels = [right, right, wrong[right]] if number < N_ANSWERED else ["A", "B", "D"]
        for annotator, label in zip(annotators, labels):
            answer(dataset, annotator, f"w{number}", label, 1000)
    model = [{"id": f"w{n}", "answer": gold_label(n) if n not in (5, 6) else wrong[gold_label(n)]}
             for n in range(1, N_ITEMS + 1)]
    upload_model_submission(dataset=dataset, name="all", submission=SourceFile("all.jsonl", jsonl_bytes(model)))
    half = [{"id": f"w{n}", "answer": gold_label(n) if n % 2 else wrong[gold_label(n)]} for n in range(1, N_ITEMS + 1)]
    upload_model_submission(dataset=dataset, name="half", submission=SourceFile("half.jsonl", jsonl_bytes(half)))
    return dataset


def test_pooled_sources_are_scored_on_their_complete_items_and_models_on_the_same(pilot):
    report = dataset_report(pilot, resamples=200, seed=4, test_rounds=300)
    assert report["complete_items"] == [f"w{n}" for n in range(1, N_ANSWERED + 1)]
    rows = {row["source"]: row for row in report["sources"]}
    majority = rows["majority"]
    # w1-w4 right, w5 without a majority: missing, not left out (that would favour easy items).
    assert (majority["n_scored"], majority["n_missing"], majority["coverage"]) == (5, 1, 0.1)
    assert majority["metrics"]["accuracy"] == 0.8
    model = rows["model:all"]
    assert (model["n_scored"], model["scored_on"]) == (N_ITEMS, "all gold items")
    for name in ("all", "half"):
        comparison = next(c for c in report["comparisons"] if c["human"] == "majority" and c["model_name"] == name)
        assert (comparison["n_scored"], comparison["coverage"]) == (5, 0.1)
        assert comparison["test_rounds"] == 300 and comparison["p_value"] is not None
    comparison = next(c for c in report["comparisons"] if c["human"] == "majority" and c["model_name"] == "all")
    # On w1-w5 the model is right on w1-w4 (as the majority) and wrong on w5 (the majority has none):
    # no discordant item; macro-F1 differs all the same (the model's wrong w5 label is a false positive).
    assert (comparison["n_a_only"], comparison["n_b_only"], comparison["mcnemar_p"]) == (0, 0, 1.0)
    assert comparison["score_human"] > comparison["score_model"]
    annotator = next(c for c in report["comparisons"] if c["human"] == "annotator:p0")
    assert annotator["n_scored"] == 5 and "p_value" not in annotator  # individual annotators: no test
    group = report["mean_annotator"]
    assert (group["n_annotators"], group["n_units"]) == (3, 5)
    assert set(group["models"]) == {"all", "half"}


def test_every_figure_equals_the_scorer_cli_on_the_downloads(pilot, tmp_path):
    """The report's command lines, run on the files its downloads hold, print its figures."""
    report = dataset_report(pilot, resamples=100, seed=2, test_rounds=200)
    gold_data, gold_name = gold_file(pilot)
    (tmp_path / gold_name).write_bytes(gold_data)
    (tmp_path / items_filename(pilot)).write_text("".join(f"{item}\n" for item in report["complete_items"]))
    client = Client()
    client.force_login(make_user("organizer"))
    inputs = client.get(reverse("organizer_report", args=[pilot.pk]) + "?inputs=1")
    assert inputs["Content-Disposition"].endswith(f'"{inputs_filename(pilot)}"')
    (tmp_path / inputs_filename(pilot)).write_bytes(inputs.content)
    for source, fill in [*((f"annotator:p{index}", None) for index in range(3)), ("majority", None),
                         ("adjudicated", None), ("majority", "adjudicated"), ("dawid-skene", None)]:
        try:
            export = build_export(pilot, source, fill=fill)
        except Refused:  # nothing adjudicated: no file, and no row in the report
            continue
        (tmp_path / export.filename).write_bytes(export.data)
    for model in pilot.model_submissions.all():
        (tmp_path / model.filename).write_bytes(bytes(model.data))

    def run(command: str) -> dict:
        arguments = shlex.split(command)
        assert arguments[:3] == ["python", "-m", "scoring"]
        completed = subprocess.run([sys.executable, "-m", "scoring", *arguments[3:]], cwd=tmp_path,
                                   capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(settings.BASE_DIR)})
        assert completed.returncode == 0, completed.stdout + completed.stderr
        return json.loads(completed.stdout)

    printed = {command: run(command) for command in report["commands"]}
    # The Dawid–Skene fit first: it writes the source's file the score after it reads (the same
    # bytes as the download) and prints each annotator's estimated accuracy as the report has it.
    fitted = printed[report["commands"][0]]
    assert report["commands"][0].startswith("python -m scoring dawid-skene wsd --inputs pilot.inputs.jsonl --pred ")
    assert (tmp_path / build_export(pilot, "dawid-skene").filename).read_bytes() == build_export(pilot, "dawid-skene").data
    figures = report["dawid_skene"]
    assert (fitted["iterations"], fitted["classes"]) == (figures["iterations"], figures["classes"])
    assert [(row["accuracy"], row["n_answers"]) for row in fitted["annotators"]] == [
        (row["accuracy"], row["n_answers"]) for row in figures["annotators"]]
    assert [command for command in report["commands"] if " dawid-skene " in command] == report["commands"][:1]
    scores = [figures for command, figures in printed.items() if " score " in command]
    assert [row["metrics"] for row in report["sources"] if row.get("available")] == scores  # every digit
    compares = [figures for command, figures in printed.items() if " compare " in command]
    assert len(compares) == len(report["comparisons"])
    for comparison, (command, figures) in zip(report["comparisons"], [(c, f) for c, f in printed.items() if " compare " in c]):
        assert (comparison["score_human"], comparison["score_model"], comparison["diff"]) == (
            figures["score_a"], figures["score_b"], figures["diff"])
        assert comparison["diff_ci"] == [figures["diff_ci_low"], figures["diff_ci_high"]]
        if "--test-rounds" in command:
            assert (comparison["p_value"], comparison["mcnemar_p"], comparison["n_a_only"], comparison["n_b_only"]) == (
                figures["p_value"], figures["mcnemar_p"], figures["n_a_only"], figures["n_b_only"])
        else:
            assert comparison["human_kind"] == "annotator"
    groups = [figures for command, figures in printed.items() if " annotators " in command]
    group = report["mean_annotator"]
    assert (group["mean"], group["ci_low"], group["ci_high"]) == (groups[0]["mean"], groups[0]["ci_low"], groups[0]["ci_high"])
    for figures, model in zip(groups[1:], pilot.model_submissions.order_by("name")):
        assert group["models"][model.name] == {key: figures[key] for key in ("diff", "diff_ci_low", "diff_ci_high")}


def test_the_campaign_table_sets_its_human_source_beside_each_model_with_holm(pilot):
    campaign = create_campaign(name="pilot-campaign", datasets=[pilot], human_source=Campaign.HumanSource.MAJORITY)
    table = campaign_report(campaign, resamples=50, test_rounds=100)
    assert table["human_source"] == "majority"
    assert table["columns"] == ["human source", "mean annotator", "model:all", "model:half"]
    row = next(row for row in table["rows"] if row["subtask"] == "wsd")
    human = row["cells"]["human source"]
    assert (human["source"], human["n_items"], human["n_missing"], human["coverage"]) == ("majority", 5, 1, 0.1)
    assert row["cells"]["mean annotator"]["ci_low"] is not None
    for model in ("model:all", "model:half"):
        cell = row["cells"][model]
        assert cell["n_items"] == 5
        assert cell["p_holm"] == min(1.0, cell["p_value"])  # a family of one subtask
        assert "On 5 items, the majority of 3 annotators" in cell["quote"]["sentence"]
        assert "Holm-adjusted over 1 subtasks" in cell["quote"]["sentence"]
    client = Client()
    client.force_login(make_user("organizer"))
    page = client.get(reverse("organizer_campaign", args=[campaign.pk]), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Na 5 pozycjach większość (anotatorów: 3)" in page and "po korekcie Holma w obrębie 1 podzadań" in page


def test_the_report_page_and_items_download(pilot):
    client = Client()
    client.force_login(make_user("organizer"))
    url = reverse("organizer_report", args=[pilot.pk])
    page = client.get(url).content.decode()
    assert 'id="comparisons"' in page and "McNemar" in page and 'id="commands"' in page
    items = client.get(url + "?items=1")
    assert items["Content-Disposition"].endswith('"pilot.complete-items.txt"')
    assert items.content.decode().split() == [f"w{n}" for n in range(1, N_ANSWERED + 1)]
    api = client.get(reverse("api_dataset_report", args=[pilot.pk]) + "?items=1")
    assert api.content == items.content
    assert json.loads(client.get(reverse("api_dataset_report", args=[pilot.pk])).content)["complete_items"] == \
        [f"w{n}" for n in range(1, N_ANSWERED + 1)]
    polish = Client(headers={"accept-language": "pl"})
    polish.force_login(make_user("organizer"))
    polish_page = polish.get(url, HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Kompletne pozycje" in polish_page and "Dane wejściowe (do polecenia Dawida–Skene’a)" in polish_page


def test_the_campaign_form_and_the_command_take_the_new_options(pilot, capsys):
    client = Client()
    client.force_login(make_user("organizer"))
    response = client.post(reverse("organizer_campaigns"),
                           {"name": "chosen", "datasets": [pilot.pk], "human_source": "adjudicated"})
    assert response.status_code == 302
    assert Campaign.objects.get(name="chosen").human_source == "adjudicated"
    call_command("baseline_report", "pilot", "--test-rounds", "40", "--seed", "1")
    report = json.loads(capsys.readouterr().out)
    assert report["test_rounds"] == 40
    assert all(c["test_rounds"] == 40 for c in report["comparisons"] if c["human_kind"] != "annotator")
    with pytest.raises(CommandError, match="--test-rounds"):
        call_command("baseline_report", "pilot", "--test-rounds", "-1")
