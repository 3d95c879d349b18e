"""Whose answers count in the results: a study's test entries never; a participant the panel's
export did not list not while unlisted, again once a reconciliation lists them; everyone else
(participants included) everywhere. No export, report, paper kit or release bundle holds a
panel id or a panel session id."""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.adjudicate.selectors import adjudicated_answers, dataset_cases
from annotation.answers.normalised import normalised_answer
from annotation.core.errors import Refused
from annotation.datasets.auditing import audit_queue
from annotation.models import Annotation, Campaign, Dataset, Flag, Item, StoredReport, Study, StudyParticipant
from annotation.results.agreement import dataset_answers
from annotation.results.computing import request_report
from annotation.results.exporting import FORMATS, build_export
from annotation.results.exports import export_summaries
from annotation.results.formats import campaign_file, report_file
from annotation.results.paper import paper_files
from annotation.results.release import campaigned, release_files
from annotation.results.report import campaign_report, dataset_report
from annotation.results.selectors import campaign_version, changes_since, dataset_version, newest_report, version_key
from annotation.results.services import create_campaign
from tests.factories import make_user
from tests.organizer.conftest import answer_from_gold, import_sample
from tests.studies.panel import ANSWERED, PANEL_STUDY, answer, make_study, panel_id, wrong

pytestmark = pytest.mark.django_db

def participant(study: Study, number: int, *, test: bool = False, session: str | None = None) -> StudyParticipant:
    """A participant who entered an hour ago (a test entry keeps no panel id, only its session)."""
    now = timezone.now()
    return StudyParticipant.objects.create(
        study=study, user=make_user(), panel_id=None if test else panel_id(number),
        panel_session=session or f"sess{number:021x}", test=test, entered_at=now - timedelta(hours=1),
        deadline=now + timedelta(hours=1))


@pytest.fixture
def panel():
    """A wsd dataset of a campaign's study: two participants and an annotator of the team agree
    (the gold), a late participant and a test entry answer every item otherwise."""
    dataset = import_sample("wsd")
    campaign = create_campaign(name="panel-campaign", datasets=[dataset])
    study = make_study((dataset, ANSWERED), campaign=campaign)
    first, second, late = (participant(study, number) for number in (1, 2, 3))
    test = participant(study, 4, test=True, session="preview-session-0001")
    staff = make_user()
    for person in (first.user, second.user, staff):
        answer(dataset, person, right=True)
    for person in (late.user, test.user):
        answer(dataset, person, right=False)
    return {"dataset": dataset, "campaign": campaign, "study": study, "late": late, "test": test,
            "counted": sorted([first.user.username, second.user.username, staff.username])}


READS = ("agreement", "exports", "all", "report", "report_time")


def annotators_everywhere(dataset: Dataset) -> dict[str, list[str]]:
    """Whose answers each read of the results holds (usernames)."""
    report = dataset_report(dataset, resamples=50, test_rounds=50)
    records = [json.loads(line) for line in build_export(dataset, "all").data.splitlines()]
    return {
        "agreement": dataset_answers(dataset).annotators,
        "exports": sorted(row.source.partition(":")[2] for row in export_summaries(dataset)
                          if row.source.startswith("annotator:")),
        "all": sorted({record["annotator"] for record in records}),
        "report": sorted(row["name"] for row in report["sources"] if row["kind"] == "annotator"),
        "report_time": sorted(row["annotator"] for row in report["time"]["per_annotator"]),
    }


def cases(dataset: Dataset) -> list[str]:
    return [row.external_id for row in dataset_cases(dataset.pk)]


def test_a_participant_the_panel_did_not_list_counts_again_once_a_reconciliation_lists_them(panel):
    dataset, late = panel["dataset"], panel["late"]
    with_late = sorted([*panel["counted"], late.user.username])
    assert annotators_everywhere(dataset) == dict.fromkeys(READS, with_late)
    assert len(cases(dataset)) == ANSWERED  # the late participant disagrees on every item
    before = dataset_version(dataset)

    # A reconciliation whose panel export does not list them.
    now = timezone.now()
    StudyParticipant.objects.filter(pk=late.pk).update(unreconciled_at=now)
    Study.objects.filter(pk=panel["study"].pk).update(reconciled_at=now)
    unlisted = dataset_version(dataset)
    assert version_key(unlisted) != version_key(before)
    assert "the study participants who count changed" in changes_since(before, unlisted, [dataset.pk])
    assert annotators_everywhere(dataset) == dict.fromkeys(READS, panel["counted"])
    assert cases(dataset) == []  # the others agree: nothing to adjudicate
    assert len(adjudicated_answers(dataset)) == ANSWERED
    with pytest.raises(Refused):
        build_export(dataset, f"annotator:{late.user.username}")
    majority = [json.loads(line) for line in build_export(dataset, "majority").data.splitlines()]
    gold = {item.external_id: item.gold.payload["answer"] for item in Item.objects.filter(dataset=dataset)
            .select_related("gold")}
    assert [line["answer"] for line in majority] == [gold[line["id"]] for line in majority]

    # A later reconciliation lists them.
    StudyParticipant.objects.filter(pk=late.pk).update(unreconciled_at=None)
    Study.objects.filter(pk=panel["study"].pk).update(reconciled_at=now + timedelta(minutes=5))
    listed = dataset_version(dataset)
    assert version_key(listed) not in (version_key(unlisted), version_key(before))
    assert annotators_everywhere(dataset) == dict.fromkeys(READS, with_late)
    assert len(cases(dataset)) == ANSWERED


def test_a_test_entry_never_counts(panel):
    dataset, test = panel["dataset"], panel["test"]
    assert annotators_everywhere(dataset) == dict.fromkeys(READS, sorted([*panel["counted"], panel["late"].user.username]))
    # A flag of theirs makes no case either.
    Flag.objects.create(item=Item.objects.get(dataset=dataset, ordinal=ANSWERED + 1), raised_by=test.user,
                        comment="preview")
    StudyParticipant.objects.filter(pk=panel["late"].pk).update(unreconciled_at=timezone.now())
    assert cases(dataset) == []
    # Nor do their answers agreeing against the gold put an item in the gold audit.
    item = Item.objects.select_related("gold").get(dataset=dataset, ordinal=ANSWERED + 2)
    fields = wrong(answer_from_gold("wsd", item.gold.payload))
    for person in (test.user, panel["late"].user):
        Annotation.objects.create(item=item, annotator=person, answer=fields, status=Annotation.Status.SUBMITTED,
                                  submitted_at=timezone.now(), normalised_answer=normalised_answer("wsd", fields))
    assert [audited.external_id for audited in audit_queue(dataset)] == []
    table = campaign_report(panel["campaign"], resamples=50, test_rounds=50)
    kit = campaigned(panel["campaign"], table)
    assert sorted(kit.names) == panel["counted"]
    assert kit.summary["subtasks"]["wsd"]["n_annotators"] == 3
    assert kit.summary["subtasks"]["wsd"]["time"]["n_answers"] == 3 * ANSWERED


def test_no_export_report_kit_or_bundle_holds_a_panel_id(panel):
    dataset, campaign, study = panel["dataset"], panel["campaign"], panel["study"]
    secrets = [value for row in StudyParticipant.objects.filter(study=study).values_list("panel_id", "panel_session")
               for value in row if value] + [PANEL_STUDY]
    assert len(secrets) == 8
    Flag.objects.create(item=Item.objects.get(dataset=dataset, ordinal=0), raised_by=panel["late"].user,
                        comment="nie wiem")
    files: dict[str, bytes] = {}
    for row in export_summaries(dataset):
        for file_format in row.formats:
            fill = [None, row.fill] if row.fill else [None]
            for option in fill:
                try:
                    files[f"export {row.source} {file_format} {option}"] = build_export(
                        dataset, row.source, file_format, option).data
                except Refused:
                    continue
    assert any(name.startswith("export annotator:") for name in files) and set(FORMATS) <= {
        name.split()[2] for name in files}
    report = dataset_report(dataset, resamples=50, test_rounds=50)
    table = campaign_report(campaign, resamples=50, test_rounds=50)
    for fmt in ("json", "md", "csv", "tex"):
        files[f"report.{fmt}"] = report_file(report, [], fmt).encode()
        files[f"campaign.{fmt}"] = campaign_file(table, fmt).encode()
    kit = campaigned(campaign, table)
    files |= {f"paper/{name}": data for name, data in paper_files(kit, with_free_text=True).items()}
    files |= {f"release/{name}": data for name, data in release_files(kit, with_gold=True).items()}
    organizer = Client()
    organizer.force_login(make_user("organizer"))
    for url in (reverse("organizer_report", args=[dataset.pk]), reverse("organizer_agreement", args=[dataset.pk]),
                reverse("organizer_exports", args=[dataset.pk]), reverse("organizer_campaign", args=[campaign.pk]),
                reverse("api_dataset_report", args=[dataset.pk]), reverse("api_campaign_report", args=[campaign.pk])):
        response = organizer.get(url)
        assert response.status_code in (200, 202), url
        files[url] = response.content
    leaks = [(name, secret) for name, data in files.items() for secret in secrets if secret.encode() in data]
    assert leaks == []
    # The participants are there, under their pseudonyms.
    assert "paper/summary.json" in files and b"A1" in files["release/wsd/answers.jsonl"]
    assert version_key(campaign_version(campaign))


def test_the_campaign_of_a_study_is_found_through_its_datasets_too(panel):
    other = Campaign.objects.create(name="same-data")
    other.datasets.add(panel["dataset"])
    kit = campaigned(other, campaign_report(other, resamples=50, test_rounds=50))
    assert [study["study"] for study in kit.summary["studies"]] == [panel["study"].name]


def test_a_reconciliation_that_changes_who_counts_has_the_stored_report_computed_again(panel):
    dataset, late = panel["dataset"], panel["late"]
    options = {"seed": 0, "exclude_below_control": False}

    def computed_annotators() -> list[str]:
        request_report(dataset=dataset, now_asked=True, **options)  # inline: the tests' immediate backend
        stored = newest_report(dataset=dataset, **options)
        assert version_key(stored.seen) == version_key(dataset_version(dataset))
        return sorted(row["name"] for row in stored.report["sources"] if row["kind"] == "annotator")

    assert computed_annotators() == sorted([*panel["counted"], late.user.username])
    StudyParticipant.objects.filter(pk=late.pk).update(unreconciled_at=timezone.now())
    assert computed_annotators() == panel["counted"]
    assert StoredReport.objects.filter(dataset=dataset, status=StoredReport.Status.DONE).count() == 2
