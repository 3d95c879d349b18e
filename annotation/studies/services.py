"""The organizer's writes of a panel study (services): its set-up (settings and datasets in
order, each checked, all or nothing), pausing, reopening and closing it, reconciliation with
the panel's submissions export, and deleting the panel's ids once participants are paid.

Reconciliation closes the gap the entry link leaves open (annotation.studies.entering): anyone
holding the link can enter with an id that has not entered yet, but only the ids of the panel's
own export are counted. Participants (test entries aside) whose panel id the export does not
list are marked unreconciled (left out of exports, reports and payment files, and listed on
the study page); those it lists are cleared of that mark and take their status on the panel.
"""

from __future__ import annotations

import csv
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotation.annotate import routing
from annotation.core.errors import Refused
from annotation.core.files import SourceFile, decoded_lines
from annotation.core.problems import problem
from annotation.models import Campaign, Dataset, Item, Study, StudyDataset, StudyParticipant, StudyRefusal
from annotation.models.studies import PROLIFIC_RETURN_LINK
from annotation.studies.selectors import attention_items
from scoring.problems import Problem

# The columns of the panel's submissions export the reconciliation reads (Prolific's names;
# any other column is passed over).
ID_COLUMN, STATUS_COLUMN = "Participant id", "Status"

# Settings of the Study model the set-up form gives (the token, state and counts are the app's).
SETTINGS = (
    "name", "campaign", "deadline_minutes", "consent", "completed_code", "screened_out_code", "no_consent_code",
    "return_link", "participant_parameter", "study_parameter", "session_parameter", "participant_id_pattern",
    "panel_study_id", "test_ids", "pay_amount", "pay_currency", "pay_basis", "minimum_hourly_rate", "bonus_rule",
    "bonus_amount", "bonus_threshold", "attention_items", "attention_failures",
)


@dataclass(frozen=True)
class Step:
    """One dataset of a study, in its order, with each participant's quota of its items."""

    dataset: Dataset
    quota: int


def step_problems(campaign: Campaign | None, steps: list[Step]) -> list[Problem]:
    """What is wrong with a study's datasets: none, several without a campaign, one outside the
    campaign or given twice, one without routing (and its k)."""
    if not steps:
        return [problem("study_no_dataset", "steps")]
    if campaign is None and len(steps) > 1:
        return [problem("study_one_dataset", "campaign")]
    problems, seen = [], set()
    in_campaign = set(campaign.datasets.values_list("pk", flat=True)) if campaign is not None else None
    for step in steps:
        dataset = step.dataset
        if dataset.pk in seen:
            problems.append(problem("study_dataset_twice", "steps", dataset=dataset.name))
        seen.add(dataset.pk)
        if in_campaign is not None and dataset.pk not in in_campaign:
            problems.append(problem("study_outside_campaign", "campaign", dataset=dataset.name, campaign=campaign.name))
        if not dataset.routing or not dataset.answers_per_item:
            problems.append(problem("study_not_routed", "routing", dataset=dataset.name))
    return problems


def setting_problems(study: Study | None, settings: dict, steps: list[Step]) -> list[Problem]:
    """What is wrong with a study's settings: the name of another study, a participant id format that does not compile, a
    return link without {code}, parameters of one name, a bonus rule without its amount or
    threshold, attention items that are no control item of the study's datasets."""
    problems = []
    namesakes = Study.objects.filter(name=settings["name"])
    if (namesakes if study is None else namesakes.exclude(pk=study.pk)).exists():
        problems.append(problem("study_name_exists", "name", name=settings["name"]))
    try:
        re.compile(settings["participant_id_pattern"])
    except re.error as error:
        problems.append(problem("study_pattern", "participant_id_pattern", error=str(error)))
    if "{code}" not in settings["return_link"]:
        problems.append(problem("study_return_link", "return_link", example=PROLIFIC_RETURN_LINK))
    names = [settings[name] for name in ("participant_parameter", "study_parameter", "session_parameter")]
    if len(set(names)) < len(names):
        problems.append(problem("study_parameters_same", "study_parameter"))
    rule = settings["bonus_rule"]
    if rule != Study.BonusRule.NONE and (settings["bonus_amount"] is None or settings["bonus_amount"] < 0):
        problems.append(problem("study_bonus_amount", "bonus_amount"))
    threshold = settings["bonus_threshold"]
    if rule == Study.BonusRule.THRESHOLD and (threshold is None or not 0 <= threshold <= 1):
        problems.append(problem("study_bonus_threshold", "bonus_threshold"))
    wanted = attention_items(Study(attention_items=settings["attention_items"]))
    known = set(Item.objects.filter(dataset__pool_of__in=[step.dataset for step in steps],
                                    dataset__pool_kind=Dataset.PoolKind.CONTROL, dataset__archived_at__isnull=True,
                                    external_id__in=wanted).values_list("external_id", flat=True))
    if wanted - known:
        problems.append(problem("study_attention_item", "attention_items", ids=sorted(wanted - known)))
    return problems


def save_study(study: Study | None, settings: dict, steps: list[Step], *, by: AbstractBaseUser | None = None) -> Study:
    """Create a study (``study`` None: with a new link token) or change one, from ``settings``
    (every name of SETTINGS) and its datasets in order; raises Refused, changing nothing, on any
    problem. The datasets stay as they are once a participant has entered."""
    problems = step_problems(settings["campaign"], steps) + setting_problems(study, settings, steps)
    if study is not None and study.participants.exists() and [(step.dataset.pk, step.quota) for step in steps] != list(
            study.steps.values_list("dataset_id", "quota")):
        problems.append(problem("study_steps_fixed", "steps"))
    if problems:
        raise Refused(problems)
    with transaction.atomic():
        if study is None:
            study = Study(token=secrets.token_urlsafe(24), created_by=by)
        for name in SETTINGS:
            setattr(study, name, settings[name])
        if study.bonus_rule == Study.BonusRule.NONE:
            study.bonus_amount = study.bonus_threshold = None
        study.save()
        if not study.participants.exists():
            study.steps.all().delete()
            StudyDataset.objects.bulk_create(StudyDataset(study=study, dataset=step.dataset, order=order, quota=step.quota)
                                             for order, step in enumerate(steps, start=1))
    return study


def set_state(study: Study, state: str) -> None:
    """Open (reopen), pause or close the study. Reopened, it may close by itself again when the
    items left cannot fill a quota (annotation.studies.entering.close_if_full)."""
    Study.objects.filter(pk=study.pk).update(state=Study.State(state), closed_by_itself=False)


@dataclass(frozen=True)
class Reconciled:
    """What a reconciliation did: participants found in the export, those left out, and the
    export's ids of no participant of the study."""

    found: int
    left_out: int
    unknown: int


def read_export(source: SourceFile) -> dict[str, str]:
    """The panel's submissions export (CSV with a header line; extra columns passed over):
    participant id -> status on the panel. Raises Refused naming file, line and field for a file
    that is not UTF-8 CSV, a header without the columns read, a line of another number of cells
    or without a participant id."""
    problems: list[Problem] = []
    statuses: dict[str, str] = {}
    header: list[str] | None = None
    with source.open() as stream:
        reader = csv.reader(decoded_lines(stream, source.name, problems))
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error:
                problems.append(problem("csv", "line", source.name, reader.line_num))
                break
            if not any(cell.strip() for cell in cells):
                continue
            if header is None:
                header = [cell.strip().lower() for cell in cells]
                for column in (ID_COLUMN, STATUS_COLUMN):
                    if column.lower() not in header:
                        problems.append(problem("study_export_column", column, source.name, reader.line_num,
                                                column=column))
                continue
            if len(cells) != len(header):
                problems.append(problem("study_export_cells", "line", source.name, reader.line_num, count=len(cells),
                                        expected=len(header)))
                continue
            if problems:
                continue  # the header is wrong: the lines cannot be read
            row = dict(zip(header, cells, strict=True))
            participant = row[ID_COLUMN.lower()].strip()
            if not participant:
                problems.append(problem("study_export_no_id", ID_COLUMN, source.name, reader.line_num))
                continue
            statuses[participant] = row[STATUS_COLUMN.lower()].strip()
    if header is None and not problems:
        problems.append(problem("study_export_empty", "file", source.name))
    if problems:
        raise Refused(problems)
    return statuses


def reconcile(study: Study, source: SourceFile, now: datetime | None = None) -> Reconciled:
    """Reconcile the study's participants with the panel's submissions export, in one
    transaction: those the export lists are counted, with their status on the panel; the
    others (test entries and ids deleted after payment aside) are left out from ``now``; the
    routed items of those whose answers now count, or no longer do, are counted again, so that
    routing completes to k the items a left-out participant had answered.
    A malformed export is refused and changes nothing."""
    now = now or timezone.now()
    statuses = read_export(source)
    with transaction.atomic():
        participants = list(StudyParticipant.objects.select_for_update()
                            .filter(study=study, test=False, panel_id__isnull=False))
        changed = []
        for participant in participants:
            left_out = participant.unreconciled_at is not None
            if participant.panel_id in statuses:
                participant.unreconciled_at, participant.panel_status = None, statuses[participant.panel_id]
            else:
                participant.unreconciled_at = participant.unreconciled_at or now
            if left_out != (participant.unreconciled_at is not None):
                changed.append(participant.user_id)
        StudyParticipant.objects.bulk_update(participants, ["unreconciled_at", "panel_status"], batch_size=1000)
        routing.recount(changed)
        Study.objects.filter(pk=study.pk).update(reconciled_at=now)
    found = sum(1 for participant in participants if participant.panel_id in statuses)
    return Reconciled(found=found, left_out=len(participants) - found, unknown=len(statuses) - found)


def delete_panel_ids(study: Study) -> int:
    """Delete the panel's ids of the study's participants and refused entries, once they are
    paid (the accounts, their pseudonyms and answers stay); the study is closed, since an id
    forgotten could enter again as a new one. How many participants had an id."""
    with transaction.atomic():
        Study.objects.filter(pk=study.pk).update(state=Study.State.CLOSED)
        participants = StudyParticipant.objects.filter(study=study)
        deleted = participants.filter(panel_id__isnull=False).count()
        participants.update(panel_id=None, panel_session="")
        StudyRefusal.objects.filter(study=study).update(panel_id=None, panel_session="")
    return deleted
