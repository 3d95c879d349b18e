"""The paper kit and the release bundle of the demo campaign: paper.tex compiles (pdflatex,
bibtex, pdflatex, pdflatex) with no undefined reference, reproduce.sh recomputes every number
of summary.json (the item difficulty counts and the gold audit's counts and audited scores
too) and notices a changed answer or audit decision, no demo login is in either; pseudonyms
stay; the protocol form; who may download them."""

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

from annotation.models import (
    Annotation,
    Campaign,
    CampaignProtocol,
    Dataset,
    GoldAnswer,
    GoldAuditDecision,
    GoldVersion,
    ModelSubmission,
    Pseudonym,
)
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


def audit_wsd() -> tuple[str, str]:
    """Three decisions of the gold audit on the demo's wsd items: the first item's gold corrected
    to another sense, the second withdrawn, the third's gold stands; (corrected id, withdrawn id)."""
    organizer = make_user("organizer", username="kit-auditor")
    first, second, third = GoldAnswer.objects.filter(item__dataset__name="demo-answered-wsd").select_related(
        "item").order_by("item__ordinal")[:3]
    answer = next(letter for letter in "ABCD" if letter != first.payload["answer"])
    version = GoldVersion.objects.create(item=first.item, version=2, payload={**first.payload, "answer": answer},
                                         reason="the other sense", author=organizer)
    GoldAuditDecision.objects.create(item=first.item, kind="corrected", note="the other sense", gold_version=version,
                                     decided_by=organizer)
    GoldAuditDecision.objects.create(item=second.item, kind="withdrawn", note="ambiguous", decided_by=organizer)
    GoldAuditDecision.objects.create(item=third.item, kind="stands", note="right", decided_by=organizer)
    return first.item.external_id, second.item.external_id


def annotators_right(dataset_name: str) -> dict[str, list[bool]]:
    """Item id -> whether each submitted answer is the gold's letter (wsd, coreference), by hand."""
    gold = {item_id: (external_id, answer) for item_id, external_id, answer in GoldAnswer.objects.filter(
        item__dataset__name=dataset_name).values_list("item_id", "item__external_id", "payload__answer")}
    right: dict[str, list[bool]] = {}
    for item_id, text in Annotation.objects.filter(item__dataset__name=dataset_name, status="submitted").values_list(
            "item_id", "normalised_answer"):
        if item_id in gold:
            right.setdefault(gold[item_id][0], []).append(json.loads(text)["answer"] == gold[item_id][1])
    return right


def wrong_where_annotators_right(dataset: Dataset, wrong: int) -> int:
    """A model on ``dataset`` (coreference) that answers the gold but on the first ``wrong`` items
    every annotator got right; the items every annotator got wrong (the model right on them)."""
    right = annotators_right(dataset.name)
    flipped = [item_id for item_id, answers in right.items() if all(answers)][:wrong]
    lines = [{**line, "answer": "B" if line["answer"] != "B" else "A"} if line["id"] in flipped else line
             for line in map(json.loads, gold_file(dataset)[0].decode().splitlines())]
    ModelSubmission.objects.create(dataset=dataset, name="flipper", filename="flipper.jsonl",
                                   data="".join(json.dumps(line) + "\n" for line in lines).encode())
    return sum(1 for answers in right.values() if not any(answers))


def table_of(campaign: Campaign) -> dict:
    return campaign_report(campaign, resamples=100, test_rounds=200)


def extract(files: dict[str, bytes], folder: Path, name: str) -> Path:
    zipfile.ZipFile(io.BytesIO(zip_bytes(files, name))).extractall(folder)
    return folder / name


def test_the_demo_paper_compiles_without_undefined_references_and_names_no_login(demo, tmp_path):
    assert shutil.which("pdflatex") and shutil.which("bibtex"), "scripts/test.sh installs texlive-latex-recommended"
    CampaignProtocol.objects.create(campaign=demo, recruitment="Students of Polish philology, by a call & a poster.",
                                    pay_amount=Decimal("120.00"), pay_currency="PLN", pay_basis="participant")
    every_wrong = wrong_where_annotators_right(Dataset.objects.get(name="demo-answered-coreference"), 3)
    assert every_wrong > 0
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
    assert rows[0][:3] == ["subtask", "model", "n_items"]
    assert [float(row[5]) for row in rows if row[:2] == ["wsd", "oracle"]] == [oracle["diff"]]
    assert f"oracle {100 * oracle['score_model']:.1f}" in tex
    checklist = files["checklist.md"].decode()
    assert checklist.count("- **") == len(checklist_items()["items"])
    assert FOR_THE_AUTHORS in checklist and "Students of Polish philology" in checklist
    assert "120.00 PLN per participant" in checklist
    # The flipper is wrong on 3 items every annotator got right and right on those every
    # annotator got wrong (counted by hand); the oracle on wsd is never wrong, and there every
    # annotator got something right.
    assert summary["subtasks"]["coreference"]["item_difficulty"] == {"humans_only": 3, "models_only": every_wrong}
    assert summary["subtasks"]["wsd"]["item_difficulty"] == {"humans_only": 0, "models_only": 0}
    assert summary["subtasks"]["discourse"]["item_difficulty"] is None
    assert (f"items every annotator got right and every model wrong: coreference 3, wsd 0; every annotator wrong and "
            f"every model right: coreference {every_wrong}, wsd 0.") in " ".join(tex.split())
    audit = summary["subtasks"]["wsd"]["gold_audit"]
    assert {key: audit[key] for key in ("n_audited", "n_corrected", "n_withdrawn")} == {
        "n_audited": 0, "n_corrected": 0, "n_withdrawn": 0}
    assert audit["sources"]["model:oracle"] == {"score": 1.0, "n_scored": summary["subtasks"]["wsd"]["n_gold"]}
    assert "wsd: 0 items audited, 0 corrected, 0 withdrawn" in " ".join(tex.split())

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
    corrected, withdrawn = audit_wsd()
    every_wrong = wrong_where_annotators_right(Dataset.objects.get(name="demo-answered-coreference"), 4)
    kit = campaigned(demo, table_of(demo))
    assert kit.summary["subtasks"]["coreference"]["item_difficulty"] == {"humans_only": 4, "models_only": every_wrong}
    # The audit's counts and the audited gold's scores in summary.json and paper.tex: the oracle
    # (the original gold) is wrong on the corrected item and not scored on the withdrawn one.
    wsd = kit.summary["subtasks"]["wsd"]
    audit = wsd["gold_audit"]
    assert (audit["n_audited"], audit["n_corrected"], audit["n_withdrawn"], audit["n_gold"]) == (3, 1, 1, wsd["n_gold"] - 1)
    assert audit["sources"]["model:oracle"]["n_scored"] == wsd["n_gold"] - 1
    assert audit["sources"]["model:oracle"]["score"] < 1.0 == wsd["sources"]["model:oracle"]["score"]
    tex = " ".join(paper_files(kit)["paper.tex"].decode().split())
    assert "wsd: 3 items audited, 1 corrected, 1 withdrawn" in tex
    assert "wsd 1 items corrected and 1 withdrawn" in tex
    files = release_files(kit, with_gold=True)
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
    original = [dict(line) for line in lines]
    changed = next(line for line in lines if line["answer"] == gold[line["id"]]["answer"])
    changed["answer"] = next(letter for letter in "ABCD" if letter != changed["answer"])
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    rewrite_checksums(bundle, [source["file"]])
    done = subprocess.run(["sh", str(bundle / "reproduce.sh")], **run)
    assert done.returncode == 1 and f"subtasks.wsd.sources.{source['source']}.score" in done.stdout, done.stdout
    # The answer put back, the withdrawal made a standing gold: the audit's counts and scores move.
    # Nor did the one answer change the Dawid–Skene answers the model fits again.
    assert "dawid-skene" not in done.stdout
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in original))
    audit_file = bundle / manifest["subtasks"]["wsd"]["gold_audit"]
    decisions = [json.loads(line) for line in audit_file.read_text().splitlines()]
    assert [(record["id"], record["decision"]) for record in decisions] == [
        (corrected, "corrected"), (withdrawn, "withdrawn"), (decisions[2]["id"], "stands")]
    decisions[1]["decision"] = "stands"
    audit_file.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in decisions))
    # And one answer of the Dawid–Skene source changed: not what the model fitted again gives.
    dawid_skene = next(source for source in manifest["subtasks"]["wsd"]["sources"] if source["kind"] == "dawid_skene")
    fitted = [json.loads(line) for line in (bundle / dawid_skene["file"]).read_text().splitlines()]
    fitted[0]["answer"] = next(letter for letter in "ABCD" if letter != fitted[0]["answer"])
    (bundle / dawid_skene["file"]).write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in fitted))
    rewrite_checksums(bundle, [source["file"], manifest["subtasks"]["wsd"]["gold_audit"], dawid_skene["file"]])
    done = subprocess.run(["sh", str(bundle / "reproduce.sh")], **run)
    assert done.returncode == 1 and "subtasks.wsd.gold_audit.n_withdrawn" in done.stdout, done.stdout
    assert "subtasks.wsd.gold_audit.sources.model:oracle.n_scored" in done.stdout
    assert f"subtasks.wsd.sources.{source['source']}.score" not in done.stdout
    assert f"{dawid_skene['file']}: not the answers `python -m scoring dawid-skene` fits" in done.stdout
    # A file changed without its checksum: refused before anything is computed.
    (bundle / "summary.json").write_text("{}")
    done = subprocess.run(["sh", str(bundle / "reproduce.sh")], **run)
    assert done.returncode == 1 and "summary.json: its SHA-256" in done.stdout


def rewrite_checksums(bundle: Path, names: list[str]) -> None:
    """SHA256SUMS made to list the changed files ``names`` as they are now."""
    sums = (bundle / "SHA256SUMS").read_text()
    for name in names:
        digest = subprocess.run(["sha256sum", str(bundle / name)], capture_output=True, text=True).stdout.split()[0]
        sums = re.sub(rf"^\w+  {re.escape(name)}$", f"{digest}  {name}", sums, flags=re.M)
    (bundle / "SHA256SUMS").write_text(sums)


def test_without_the_gold_reproduce_asks_for_it(demo, tmp_path):
    audit_wsd()
    table = table_of(demo)
    files = release_files(campaigned(demo, table))
    assert not [name for name in files if name.endswith("gold.jsonl")]
    # The audit's decisions are there, without the corrected gold line.
    audit_name = next(name for name in files if name.endswith(".gold-audit.jsonl") and name.startswith("wsd/"))
    assert [sorted(json.loads(line)) for line in files[audit_name].decode().splitlines()] == [
        ["decided_at", "decision", "gold_version", "id"]] * 3
    bundle = extract(files, tmp_path, "demo-release")
    done = subprocess.run([sys.executable, str(bundle / "reproduce.py")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "--gold DIR" in done.stdout
    # The gold given, yet not the audit's corrected line: asked for too; with it, every number.
    with_gold = release_files(campaigned(demo, table), with_gold=True)
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    for name, data in with_gold.items():
        if name.endswith("gold.jsonl"):
            (gold_dir / Path(name).name).write_bytes(data)
    command = [sys.executable, str(bundle / "reproduce.py"), "--gold", str(gold_dir)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and audit_name in done.stdout, done.stdout
    (gold_dir / Path(audit_name).name).write_bytes(with_gold[audit_name])
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


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
