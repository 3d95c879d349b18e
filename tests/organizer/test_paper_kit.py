"""The paper kit and the release bundle of the demo campaign: paper.tex compiles (pdflatex,
bibtex, pdflatex, pdflatex) with no undefined reference, reproduce.sh recomputes every number
of summary.json and notices a changed answer, no demo login is in either; pseudonyms stay; the
protocol form; who may download them."""

import io
import json
import re
import shutil
import subprocess
import sys
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from annotation.models import Campaign, CampaignProtocol, Dataset, ModelSubmission, Pseudonym
from annotation.results.paper import FOR_THE_AUTHORS, checklist_items, paper_files
from annotation.results.release import campaigned, release_files, zip_bytes
from annotation.results.report import campaign_report, gold_file
from annotation.results.services import create_campaign
from tests.factories import make_user

pytestmark = pytest.mark.django_db

DEMO_LOGINS = re.compile(rb"\b(?:annotator[123]|rater[123])\b")
BLOCKS = ("data", "annotators", "agreement", "results", "time", "limitations", "checklist")


@pytest.fixture
def demo() -> Campaign:
    """The demo's answered datasets as a campaign, with a model (the gold itself) on wsd."""
    call_command("load_demo", stdout=io.StringIO())
    campaign = create_campaign(name="demo", datasets=list(Dataset.objects.filter(name__startswith="demo-answered-")))
    wsd = Dataset.objects.get(name="demo-answered-wsd")
    ModelSubmission.objects.create(dataset=wsd, name="oracle", filename="oracle.jsonl", data=gold_file(wsd)[0])
    return campaign


def table_of(campaign: Campaign) -> dict:
    return campaign_report(campaign, resamples=100, test_rounds=200)


def extract(files: dict[str, bytes], folder: Path, name: str) -> Path:
    zipfile.ZipFile(io.BytesIO(zip_bytes(files, name))).extractall(folder)
    return folder / name


def test_the_demo_paper_compiles_without_undefined_references_and_names_no_login(demo, tmp_path):
    assert shutil.which("pdflatex") and shutil.which("bibtex"), "scripts/test.sh installs texlive-latex-recommended"
    CampaignProtocol.objects.create(campaign=demo, recruitment="Students of Polish philology, by a call & a poster.",
                                    pay_amount=Decimal("120.00"), pay_currency="PLN", pay_basis="participant")
    kit = campaigned(demo, table_of(demo))
    files = paper_files(kit)
    assert not [name for name, data in files.items() if DEMO_LOGINS.search(data)]
    tex = files["paper.tex"].decode()
    for block in BLOCKS:
        assert tex.count(f"% BEGIN {block}\n") == 1 and tex.count(f"% END {block}\n") == 1, block
    assert r"\usepackage[T1]{fontenc}" in tex and r"\usepackage{lmodern}" in tex and "0.7374999" not in tex
    assert r"Students of Polish philology, by a call \& a poster." in tex
    assert {"figures/wsd-scores.pdf", "figures/wsd-scores.svg", "tables/results.csv", "summary.json",
            "checklist.md", "paper.bib"} <= set(files)
    assert "free_text.md" not in files
    summary = json.loads(files["summary.json"])
    assert summary == kit.summary and summary["subtasks"]["discourse"]["sources"] == {}  # synthetic gold: no score
    oracle = summary["subtasks"]["wsd"]["comparisons"]["oracle"]
    assert oracle["score_model"] == 1.0 and oracle["family"] == 1 and oracle["p_holm"] == oracle["p_value"]
    pay = summary["pay"]
    assert pay["per_hour"] == 120.0 / pay["median_hours_start_to_finish"] and pay["n_people"] == 3
    # The results table is the campaign table's: the human source and the model, rounded for people.
    rows = [line.split(",") for line in files["tables/results.csv"].decode().splitlines()]
    assert rows[0][:3] == ["subtask", "model", "n_items"] and rows[1][:2] == ["wsd", "oracle"]
    assert float(rows[1][5]) == oracle["diff"]
    assert f"oracle {100 * oracle['score_model']:.1f}" in tex
    checklist = files["checklist.md"].decode()
    assert checklist.count("- **") == len(checklist_items()["items"])
    assert FOR_THE_AUTHORS in checklist and "Students of Polish philology" in checklist
    assert "120.00 PLN per participant" in checklist

    folder = tmp_path / "kit"
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    for step in (["pdflatex"], ["bibtex"], ["pdflatex"], ["pdflatex"]):
        arguments = [*step, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"] if step == ["pdflatex"] \
            else [*step, "paper"]
        done = subprocess.run(arguments, cwd=folder, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:]
    log = (folder / "paper.log").read_text(errors="replace")
    assert "undefined" not in log.lower() and (folder / "paper.pdf").stat().st_size > 10_000
    assert "Warning--" not in (folder / "paper.blg").read_text()


def test_the_demo_bundle_reproduces_every_number_and_a_changed_answer_fails(demo, tmp_path):
    files = release_files(campaigned(demo, table_of(demo)), with_gold=True)
    assert not [name for name, data in files.items() if DEMO_LOGINS.search(data)]
    assert "scoring/evaluate.py" in files and "guidelines/wsd.html" in files and "SHA256SUMS" in files
    bundle = extract(files, tmp_path, "demo-release")
    run = {"cwd": tmp_path, "capture_output": True, "text": True, "timeout": 600,
           "env": {"PATH": "/usr/bin:/bin", "PYTHON": sys.executable}}
    done = subprocess.run(["sh", str(bundle / "reproduce.sh")], **run)
    assert done.returncode == 0, done.stdout + done.stderr

    # One right answer of an annotator made wrong, its checksum rewritten: the score moves.
    manifest = json.loads((bundle / "manifest.json").read_text())
    source = next(source for source in manifest["subtasks"]["wsd"]["sources"] if source["kind"] == "annotator")
    gold = {line["id"]: line for line in map(json.loads, (bundle / manifest["subtasks"]["wsd"]["gold"]).read_text().splitlines())}
    path = bundle / source["file"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    changed = next(line for line in lines if line["answer"] == gold[line["id"]]["answer"])
    changed["answer"] = next(letter for letter in "ABCD" if letter != changed["answer"])
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    sums = (bundle / "SHA256SUMS").read_text()
    digest = subprocess.run(["sha256sum", str(path)], capture_output=True, text=True).stdout.split()[0]
    (bundle / "SHA256SUMS").write_text(re.sub(rf"^\w+  {re.escape(source['file'])}$", f"{digest}  {source['file']}",
                                              sums, flags=re.M))
    done = subprocess.run(["sh", str(bundle / "reproduce.sh")], **run)
    assert done.returncode == 1 and f"subtasks.wsd.sources.{source['source']}.score" in done.stdout, done.stdout
    # A file changed without its checksum: refused before anything is computed.
    (bundle / "summary.json").write_text("{}")
    done = subprocess.run(["sh", str(bundle / "reproduce.sh")], **run)
    assert done.returncode == 1 and "summary.json: its SHA-256" in done.stdout


def test_without_the_gold_reproduce_asks_for_it(demo, tmp_path):
    files = release_files(campaigned(demo, table_of(demo)))
    assert not [name for name in files if name.endswith("gold.jsonl")]
    bundle = extract(files, tmp_path, "demo-release")
    done = subprocess.run([sys.executable, str(bundle / "reproduce.py")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "--gold DIR" in done.stdout


def test_pseudonyms_stay_per_person_per_campaign(demo):
    table = table_of(demo)
    first = campaigned(demo, table).names
    assert sorted(first.values()) == ["A1", "A2", "A3"] and first["rater1"] == "A1"
    again = campaigned(demo, table).names
    assert again == first and Pseudonym.objects.filter(campaign=demo).count() == 3
    other = create_campaign(name="other", datasets=[Dataset.objects.get(name="demo-answered-wsd")])
    assert campaigned(other, table_of(other)).names == first  # numbered in each campaign alike
    assert campaigned(demo, table, anonymise=False).names["rater2"] == "rater2"


def test_the_protocol_form_saves_what_the_organizer_states_and_refuses_pay_without_basis():
    campaign = Campaign.objects.create(name="proto")
    client = Client()
    client.force_login(make_user("organizer", username="org-proto"))
    url = reverse("organizer_campaign_protocol", args=[campaign.pk])
    page = client.get(url)
    assert page.status_code == 200 and 'name="recruitment"' in page.content.decode()
    refused = client.post(url, {"recruitment": "x", "pay_amount": "30"})
    assert refused.status_code == 422 and not CampaignProtocol.objects.exists()
    saved = client.post(url, {"recruitment": "A call on the faculty list", "pay_amount": "30.50", "pay_currency": "PLN",
                              "pay_basis": "hour", "consent": "Written", "demographics": ""})
    assert saved.status_code == 302
    protocol = CampaignProtocol.objects.get(campaign=campaign)
    assert (protocol.recruitment, protocol.pay_amount, protocol.pay_basis) == ("A call on the faculty list",
                                                                               Decimal("30.50"), "hour")
    assert "A call on the faculty list" in client.get(url).content.decode()
    polish = client.get(url, HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Jak rekrutowano anotatorów" in polish


@override_settings(TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}})
def test_only_organizers_download_and_a_table_being_computed_answers_202():
    dataset = Dataset.objects.create(name="kit-wsd", subtask="wsd")
    campaign = create_campaign(name="kit", datasets=[dataset])
    urls = [reverse(name, args=[campaign.pk]) for name in
            ("organizer_campaign_paper", "organizer_campaign_release", "organizer_campaign_protocol")]
    annotator = Client()
    annotator.force_login(make_user("annotator", username="kit-annotator"))
    for url in urls:
        assert annotator.post(url).status_code in (302, 403), url
    assert not Pseudonym.objects.exists() and not CampaignProtocol.objects.exists()
    organizer = Client()
    organizer.force_login(make_user("organizer", username="kit-organizer"))
    for url in urls[:2]:
        assert organizer.get(url).status_code == 405
        response = organizer.post(url)
        assert response.status_code == 202 and response["Retry-After"] == "5", url
        assert "being computed" in response.content.decode()


def test_the_page_and_the_commands_give_the_kit_and_the_bundle(demo, tmp_path):
    client = Client()
    client.force_login(make_user("organizer", username="kit-organizer"))
    page = client.get(reverse("organizer_campaign", args=[demo.pk])).content.decode()
    assert reverse("organizer_campaign_paper", args=[demo.pk]) in page
    response = client.post(reverse("organizer_campaign_paper", args=[demo.pk]), {"with_free_text": "on"})
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert "demo-paper/paper.tex" in names and "demo-paper/free_text.md" in names
    response = client.post(reverse("organizer_campaign_release", args=[demo.pk]))
    assert "demo-release/reproduce.sh" in zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    call_command("paper", "--campaign", "demo", "-o", str(tmp_path / "kit"), stdout=io.StringIO())
    assert (tmp_path / "kit" / "paper.tex").is_file() and (tmp_path / "kit" / "figures" / "wsd-scores.pdf").is_file()
    call_command("release", "--campaign", "demo", "-o", str(tmp_path / "bundle.zip"), stdout=io.StringIO())
    bundle = zipfile.ZipFile(tmp_path / "bundle.zip")
    assert "demo-release/summary.json" in bundle.namelist()
    assert not [name for name in bundle.namelist() if name.endswith("gold.jsonl")]
