"""Reconciliation with the panel's submissions export (and the routed items it counts again),
the payment files byte for byte, and deleting the panel ids after payment (the case worked by hand: tests/studies/organizer.py)."""

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.models import Annotation, RoutedItem, Study, StudyParticipant, StudyRefusal
from tests.factories import make_user
from tests.studies.organizer import worked_study
from tests.studies.panel import ANSWER, entry_url, make_study, panel_id, routed_dataset

pytestmark = pytest.mark.django_db

# Prolific's submissions export ("Download summary"): its columns, extra ones included.
HEADER = ("Submission id,Participant id,Status,Custom study tncs accepted at,Started at,Completed at,Reviewed at,"
          "Archived at,Time taken,Completion code,Total approvals,Fluent languages,Age,Sex\n")


def line(number: int, status: str = "AWAITING REVIEW") -> str:
    return (f"671b8e95b17f88050648883{number},{panel_id(number)},{status},Not Applicable,2026-05-04T10:00:00.000000Z,"
            f"2026-05-04T10:15:00.000000Z,,2026-05-04T10:15:01Z,900,C0MPL3T,12,\"Polish, English\",31,Female\n")


@pytest.fixture
def organizer_client(client):
    client.force_login(make_user("organizer"))
    return client


def upload(client, study: Study, content: str, name: str = "prolific_export_5f0c.csv"):
    return client.post(reverse("organizer_study_reconcile", args=[study.pk]),
                       {"export": SimpleUploadedFile(name, content.encode("utf-8"), content_type="text/csv")})


def state(study: Study) -> list[tuple]:
    return list(StudyParticipant.objects.filter(study=study).order_by("pk")
                .values_list("user__username", "unreconciled_at", "panel_status"))


def test_reconciliation_counts_those_in_the_export_and_leaves_out_the_others(organizer_client):
    study = worked_study()
    # p1, p2 and p6 (left out before) are in the export; p3 and p4 are not; p5 is a test entry.
    response = upload(organizer_client, study, HEADER + line(1, "APPROVED") + line(2) + line(6) + line(9))
    assert response.status_code == 302
    rows = {name: (left_out is not None, status) for name, left_out, status in state(study)}
    assert rows == {"study-p1": (False, "APPROVED"), "study-p2": (False, "AWAITING REVIEW"), "study-p3": (True, ""),
                    "study-p4": (True, ""), "study-p5": (False, ""), "study-p6": (False, "AWAITING REVIEW")}
    study.refresh_from_db()
    assert study.reconciled_at is not None
    page = organizer_client.get(reverse("organizer_study", args=[study.pk]))
    assert "participants found in it: 3; left out (not in it): 2; ids of the export that are no participant" \
           " of the study: 1." in page.content.decode()
    left_out = [row.participant.user.username for row in page.context["page"].left_out]
    assert left_out == ["study-p3", "study-p4"]
    # Left out, p3 is paid no more.
    assert organizer_client.get(reverse("organizer_study", args=[study.pk]) + "?download=approve").content == (
        f"{panel_id(1)}\n{panel_id(2)}\n{panel_id(6)}\n".encode())


@pytest.mark.parametrize("content, where", [
    (HEADER.replace("Participant id", "Participant") + line(1), "prolific_export_5f0c.csv:1: Participant id:"),
    (HEADER + line(1) + "671b,000000000000000000000002,APPROVED\n", "prolific_export_5f0c.csv:3: line:"),
    (HEADER + line(1).replace(panel_id(1), ""), "prolific_export_5f0c.csv:2: Participant id:"),
    (HEADER + line(1) + '"unclosed,' + "x" * 10 + "\n", "prolific_export_5f0c.csv:"),
    ("\n\n", "prolific_export_5f0c.csv: file:"),
])
def test_a_malformed_export_is_refused_naming_file_line_and_field_and_changes_nothing(organizer_client, content, where):
    study = worked_study()
    before = state(study)
    response = upload(organizer_client, study, content)
    assert response.status_code == 422
    problems = response.context["problems"]
    assert problems and str(problems[0]).startswith(where), [str(problem) for problem in problems]
    assert state(study) == before
    study.refresh_from_db()
    assert study.reconciled_at is None


def test_an_export_not_utf8_or_empty_is_refused(organizer_client):
    study = worked_study()
    response = organizer_client.post(reverse("organizer_study_reconcile", args=[study.pk]), {
        "export": SimpleUploadedFile("e.csv", HEADER.encode() + "é".encode("latin-1") + b"\n")})
    assert response.status_code == 422 and str(response.context["problems"][0]).startswith("e.csv:2: file:")
    response = upload(organizer_client, study, "")
    assert response.status_code == 422 and response.context["reconcile_form"].errors["export"]


def download(client, study: Study, kind: str):
    return client.get(reverse("organizer_study", args=[study.pk]) + f"?download={kind}")


def test_each_payment_file_byte_for_byte(organizer_client):
    study = worked_study(bonus_rule=Study.BonusRule.PER_CONTROL, bonus_amount=Decimal("0.10"))
    bonus = download(organizer_client, study, "bonus")
    assert bonus["Content-Type"] == "text/csv; charset=utf-8"
    assert bonus["Content-Disposition"] == f'attachment; filename="{study.name}.bonus.csv"'
    # p3's bonus is 0.00 (left out), p5 a test entry and p6 left out by the reconciliation.
    assert bonus.content == f"{panel_id(1)},0.20\n{panel_id(2)},0.10\n".encode()
    assert download(organizer_client, study, "approve").content == f"{panel_id(1)}\n{panel_id(2)}\n{panel_id(3)}\n".encode()
    # p1 failed the one attention check (k3); p6 too, but is not counted.
    assert download(organizer_client, study, "review").content == (
        f"participant_id,failed_attention_checks\n{panel_id(1)},1\n".encode())


def test_no_list_to_review_without_attention_checks_and_never_for_low_accuracy(organizer_client):
    study = worked_study(attention_items="")
    response = download(organizer_client, study, "review")
    assert response.status_code == 409
    page = response.content.decode()
    assert "No counted participant belongs in this file yet" in page
    assert "There is never a list for low accuracy" in page
    assert download(organizer_client, study, "bonus").status_code == 409  # no bonus rule: nothing to pay
    assert download(organizer_client, study, "nothing").status_code == 404


def test_deleting_the_panel_ids_keeps_accounts_and_pseudonyms_and_leaves_nothing_to_pay(organizer_client):
    study = worked_study(bonus_rule=Study.BonusRule.PER_CONTROL, bonus_amount=Decimal("0.10"))
    StudyRefusal.objects.create(study=study, panel_id=panel_id(1), panel_session="s9",
                                reason=StudyRefusal.Reason.OTHER_SESSION)
    url = reverse("organizer_study_delete_ids", args=[study.pk])
    confirmation = organizer_client.get(url)
    assert confirmation.status_code == 200 and "cannot be brought back" in confirmation.content.decode()
    assert StudyParticipant.objects.filter(panel_id__isnull=False).count() == 5  # the GET changed nothing
    users = list(StudyParticipant.objects.filter(study=study).values_list("user__username", flat=True))
    assert organizer_client.post(url).status_code == 302
    assert set(StudyParticipant.objects.values_list("panel_id", "panel_session")) == {(None, "")}
    assert list(StudyRefusal.objects.values_list("panel_id", "panel_session")) == [(None, "")]
    assert list(StudyParticipant.objects.filter(study=study).values_list("user__username", flat=True)) == users
    study.refresh_from_db()
    assert study.state == Study.State.CLOSED
    for kind in ("bonus", "approve", "review"):
        response = download(organizer_client, study, kind)
        assert response.status_code == 409
        assert "The panel ids were deleted after payment: there is nothing to pay." in response.content.decode()


def test_a_reconciliation_counts_the_routed_items_of_those_it_leaves_out_or_lists_again(organizer_client):
    study = make_study((routed_dataset(2, 1), 1))  # two items, k = 1, one item per participant

    def answered_by(number: int) -> int:
        participant = Client()
        page = participant.post(entry_url(study, panel_id(number)), {"intent": "consent"})
        assert page.status_code == 302, page.content
        participant.post(page.url, {"intent": "submit", "answer": json.dumps(ANSWER), "version": "0"})
        return Annotation.objects.get(annotator__study_participant__panel_id=panel_id(number)).item_id

    first, second = answered_by(1), answered_by(2)
    assert upload(organizer_client, study, HEADER + line(1)).status_code == 302
    # p2 left out: their item needs its one answer again, and routing gives it to the next participant.
    assert RoutedItem.objects.filter(item_id=second).values_list("submitted", "complete").get() == (0, False)
    assert RoutedItem.objects.filter(item_id=first).values_list("submitted", "complete").get() == (1, True)
    assert answered_by(3) == second
    assert RoutedItem.objects.filter(item_id=second).values_list("submitted", "complete").get() == (1, True)
    # Listed again, p2's answer counts again beside p3's.
    assert upload(organizer_client, study, HEADER + line(1) + line(2) + line(3)).status_code == 302
    assert RoutedItem.objects.filter(item_id=second).values_list("submitted", "late", "complete").get() == (2, 0, True)
