"""The paper kit of a campaign with a panel study states the study's figures, on a case worked by
hand: the annotators block, the checklist and summary.json; the protocol's pay comes from the
study when it states none; the bundle reproduces with the figures as given; paper.tex compiles."""

import io
import json
import shutil
import subprocess
import sys
import zipfile
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from annotation.accounts.pseudonyms import campaign_pseudonyms
from annotation.models import CampaignProtocol, Study, StudyParticipant
from annotation.results.paper import paper_files
from annotation.results.release import campaigned, release_files, zip_bytes
from annotation.results.report import campaign_report
from annotation.results.services import create_campaign
from tests.factories import make_user
from tests.organizer.conftest import import_sample
from tests.studies.panel import answer, make_study, panel_id

pytestmark = pytest.mark.django_db

T0 = timezone.now() - timedelta(days=1)


def enter(study: Study, number: int, minutes: int | None = None, **fields) -> StudyParticipant:
    """A participant who entered at T0 + number minutes and completed ``minutes`` later (None: not)."""
    entered = T0 + timedelta(minutes=number)
    row = {"panel_id": panel_id(number), "panel_session": f"s{number}", "entered_at": entered,
           "deadline": entered + timedelta(hours=2),
           "completed_at": None if minutes is None else entered + timedelta(minutes=minutes)}
    return StudyParticipant.objects.create(study=study, user=make_user(), **(row | fields))


@pytest.fixture
def kit_campaign():
    """Six entries: two completed in 20 and 30 minutes, one screened out, one past the deadline
    (counted: 4); a test entry and a participant the panel's export did not list, both
    completed (not counted); two entries declined the consent. Paid 3.00 GBP per participant."""
    dataset = import_sample("wsd")
    campaign = create_campaign(name="panel-paper", datasets=[dataset])
    study = make_study((dataset, 4), campaign=campaign, pay_amount=Decimal("3.00"), pay_currency="GBP",
                       minimum_hourly_rate=Decimal("9.00"), declined=2)
    first, second = enter(study, 1, 20), enter(study, 2, 30)
    enter(study, 3, screened_out_at=T0 + timedelta(minutes=8))
    enter(study, 4)  # past the deadline: two hours after T0 + 4 minutes
    enter(study, 5, 1, test=True, panel_id=None)
    enter(study, 6, 5, unreconciled_at=timezone.now())
    for participant in (first, second):
        answer(dataset, participant.user, right=True)
    return campaign, study


# Worked by hand: counted 4 (completed 2, screened out 1, past the deadline 1); completion rate
# 2 / 4 = 0.5; median time of the completed: (1200 s + 1800 s) / 2 = 1500 s = 25.0 minutes;
# effective hourly pay 3.00 × 3600 / 1500 = 7.20 GBP, below the minimum of 9.00.
EXPECTED = {
    "entered": 4, "completed": 2, "screened_out": 1, "past_deadline": 1, "working": 0, "no_consent": 2,
    "test_entries": 1, "left_out": 1, "completion_rate": 0.5, "median_seconds": 1500.0,
    "effective_hourly_pay": "7.20", "below_minimum": True, "pay_amount": "3.00", "pay_currency": "GBP",
    "pay_basis": "participant",
}


def test_the_kit_states_the_studys_figures_worked_by_hand(kit_campaign):
    campaign, study = kit_campaign
    # Named on entry, as a campaign's study names its participants: the test entry took A1.
    campaign_pseudonyms(campaign, [StudyParticipant.objects.get(test=True).user.username])
    kit = campaigned(campaign, campaign_report(campaign, resamples=50, test_rounds=50))
    files = paper_files(kit)
    summary = json.loads(files["summary.json"])
    assert summary["studies"] == [{"study": study.name, **EXPECTED}]
    # The protocol states no pay: the study's is the campaign's.
    assert summary["pay"]["amount"] == 3.0 and summary["pay"]["currency"] == "GBP"
    assert summary["pay"]["basis"] == "participant"
    tex = files["paper.tex"].decode()
    block = tex[tex.index("% BEGIN annotators"):tex.index("% END annotators")]
    assert ("4 took part, 2 completed, 1 was screened out by the training round, 1 ran out of time; completion "
            "rate 50.0\\%, median time from entry to completion 25.0 minutes") in block
    assert "paid 3.00 GBP per participant, an effective hourly pay of 7.20 GBP" in block
    assert "Not counted: 2 entries without consent, 1 preview or test entry, 1 participant the panel's" in block
    assert "from a person's first answer started" not in block  # the study's hourly pay, not the answers' span
    assert "2 annotators took part, named A2, A3 here" in block
    checklist = files["checklist.md"].decode()
    lines = {line.split("**")[1].split(" ", 1)[1]: line for line in checklist.splitlines() if line.startswith("- **")}
    assert lines["Number of baseliners"].endswith(
        "2 annotators (pseudonyms A2, A3); per subtask: wsd 2; panel study " + study.name
        + ": 4 participants took part, 2 completed")
    assert "participants were paid 3.00 GBP per participant, an effective hourly pay of 7.20 GBP" in lines[
        "Testing compensation"]
    assert "2 of 4 participants completed (50.0%)" in checklist
    assert "1 of 4 participants screened out by the training round" in checklist
    assert "median 25.0 minutes from entry to completion" in checklist


def test_the_protocols_pay_stands_and_its_texts_stay(kit_campaign):
    campaign, _study = kit_campaign
    CampaignProtocol.objects.create(campaign=campaign, recruitment="Prolific, Polish speakers.", pay_amount=Decimal("4.50"),
                                    pay_currency="EUR", pay_basis="participant")
    kit = campaigned(campaign, campaign_report(campaign, resamples=50, test_rounds=50))
    assert kit.protocol["pay_amount"] == 4.5 and kit.protocol["recruitment"] == "Prolific, Polish speakers."
    assert kit.summary["studies"][0]["effective_hourly_pay"] == "7.20"


def test_the_bundle_reproduces_with_the_studys_figures_as_given_and_the_paper_compiles(kit_campaign, tmp_path):
    campaign, _study = kit_campaign
    kit = campaigned(campaign, campaign_report(campaign, resamples=50, test_rounds=50))
    files = release_files(kit, with_gold=True)
    assert json.loads(files["studies.json"]) == kit.summary["studies"]
    zipfile.ZipFile(io.BytesIO(zip_bytes(files, "bundle"))).extractall(tmp_path)
    done = subprocess.run([sys.executable, str(tmp_path / "bundle" / "reproduce.py")], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex: scripts/test.sh installs texlive-latex-recommended")
    folder = tmp_path / "paper"
    zipfile.ZipFile(io.BytesIO(zip_bytes(paper_files(kit), "paper"))).extractall(tmp_path)
    for command in (["pdflatex", "-interaction=nonstopmode", "paper.tex"], ["bibtex", "paper"],
                    ["pdflatex", "-interaction=nonstopmode", "paper.tex"]):
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]

