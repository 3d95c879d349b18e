"""A study's participants and figures (reads), as the organizer's study page, its payment
files and the paper kit state them.

Per participant: their status, items answered (submitted answers to the study's datasets'
own items), control accuracy (the mean correctness of their submitted control answers, scored
as annotation.training.selectors.control_accuracy scores them), failed attention checks (wrong
answers, correctness below 1, to the study's attention items), active time (the sum of their
answers' active time), their time (entry to completion), their pay (the study's amount per
participant, or per hour times their time in hours) and effective hourly pay (pay ÷ their time
in hours), and their bonus.

The study's figures count the participants that count: neither test entries nor participants
the panel's export did not list. Completion rate: completed ÷ entered (counted participants;
entries without consent are not participants). Median time: the median of the completed
participants' times (``statistics.median``). The study's effective hourly pay, as panels
compute it: the pay per participant ÷ the median time in hours (a study paid per hour: its
rate). Money is rounded to cents, half up.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from annotation.core.errors import NotExportable
from annotation.core.problems import problem
from annotation.models import Annotation, Dataset, Study, StudyParticipant, StudyRefusal
from annotation.studies.entering import COMPLETED, PAST_DEADLINE, SCREENED_OUT, WORKING
from annotation.training.selectors import control_accuracy

CENT = Decimal("0.01")
SECONDS_PER_HOUR = Decimal(3600)


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def attention_items(study: Study) -> set[str]:
    return {line.strip() for line in study.attention_items.splitlines() if line.strip()}


def status_of(participant: StudyParticipant, now: datetime) -> str:
    """COMPLETED, SCREENED_OUT, PAST_DEADLINE or WORKING ("started")."""
    if participant.completed_at is not None:
        return COMPLETED
    if participant.screened_out_at is not None:
        return SCREENED_OUT
    return PAST_DEADLINE if now >= participant.deadline else WORKING


@dataclass(frozen=True)
class ParticipantRow:
    participant: StudyParticipant
    status: str
    answered: int
    control_answered: int
    control_right: int  # control answers fully right (correctness 1)
    control_accuracy: float | None
    attention_failed: int
    active_ms: int
    seconds: float | None  # entry to completion (None: not completed)
    pay: Decimal | None  # None: not completed, nothing due yet
    hourly: Decimal | None
    bonus: Decimal
    below_minimum: bool

    @property
    def counts(self) -> bool:
        """Counted in the study's figures, exports and payment files."""
        return not self.participant.test and self.participant.unreconciled_at is None


def participant_pay(study: Study, seconds: float | None) -> tuple[Decimal | None, Decimal | None]:
    """(pay, effective hourly pay) of a participant who took ``seconds`` (None: not completed)."""
    if seconds is None or seconds <= 0:
        return None, None
    hours = Decimal(str(seconds)) / SECONDS_PER_HOUR
    if study.pay_basis == Study.PayBasis.HOUR:
        return cents(study.pay_amount * hours), cents(study.pay_amount)
    return cents(study.pay_amount), cents(study.pay_amount / hours)


def bonus_of(study: Study, control_right: int, accuracy: float | None) -> Decimal:
    if study.bonus_rule == Study.BonusRule.PER_CONTROL:
        return cents(study.bonus_amount * control_right)
    if study.bonus_rule == Study.BonusRule.THRESHOLD and accuracy is not None and accuracy >= study.bonus_threshold:
        return cents(study.bonus_amount)
    return Decimal("0.00")


def participant_rows(study: Study, now: datetime | None = None) -> list[ParticipantRow]:
    """Every participant of the study, in the order they entered (a fixed number of queries
    per dataset of the study)."""
    now = now or timezone.now()
    participants = list(StudyParticipant.objects.filter(study=study).select_related("user"))
    users = [participant.user_id for participant in participants]
    datasets = list(Dataset.objects.filter(study_steps__study=study).order_by("study_steps__order"))
    answered = dict(Annotation.objects.filter(annotator_id__in=users, item__dataset__in=datasets,
                                              status=Annotation.Status.SUBMITTED)
                    .values_list("annotator_id").annotate(n=Count("pk")).order_by())
    active = dict(Annotation.objects.filter(Q(item__dataset__in=datasets) | Q(item__dataset__pool_of__in=datasets),
                                            annotator_id__in=users)
                  .values_list("annotator_id").annotate(ms=Sum("active_ms")).order_by())
    usernames = {participant.user.username for participant in participants}
    correctness: dict[str, list[float]] = defaultdict(list)
    checked = attention_items(study)
    failed: dict[str, int] = defaultdict(int)
    for dataset in datasets:
        for series in control_accuracy(dataset):
            if series.annotator not in usernames:
                continue
            correctness[series.annotator] += series.correctness
            failed[series.annotator] += sum(1 for item, value in zip(series.items, series.correctness)
                                            if item in checked and value < 1)
    minimum = study.minimum_hourly_rate
    rows = []
    for participant in participants:
        name = participant.user.username
        scores = correctness.get(name, [])
        accuracy = statistics.fmean(scores) if scores else None
        right = sum(1 for value in scores if value == 1)
        seconds = ((participant.completed_at - participant.entered_at).total_seconds()
                   if participant.completed_at is not None else None)
        pay, hourly = participant_pay(study, seconds)
        rows.append(ParticipantRow(
            participant=participant, status=status_of(participant, now), answered=answered.get(participant.user_id, 0),
            control_answered=len(scores), control_right=right, control_accuracy=accuracy,
            attention_failed=failed.get(name, 0), active_ms=active.get(participant.user_id) or 0, seconds=seconds,
            pay=pay, hourly=hourly,
            bonus=bonus_of(study, right, accuracy) if participant.completed_at is not None else Decimal("0.00"),
            below_minimum=minimum is not None and hourly is not None and hourly < minimum,
        ))
    return rows


@dataclass(frozen=True)
class StudyFigures:
    """What the paper states of the study (counted participants only)."""

    entered: int
    completed: int
    screened_out: int
    past_deadline: int
    working: int
    no_consent: int
    test_entries: int
    left_out: int  # not in the panel's export
    completion_rate: float | None
    median_seconds: float | None
    hourly: Decimal | None
    below_minimum: bool

    def as_json(self) -> dict:
        return {
            "entered": self.entered, "completed": self.completed, "screened_out": self.screened_out,
            "past_deadline": self.past_deadline, "working": self.working, "no_consent": self.no_consent,
            "test_entries": self.test_entries, "left_out": self.left_out, "completion_rate": self.completion_rate,
            "median_seconds": self.median_seconds, "effective_hourly_pay": None if self.hourly is None else str(self.hourly),
            "below_minimum": self.below_minimum,
        }


def study_figures(study: Study, rows: list[ParticipantRow]) -> StudyFigures:
    counted = [row for row in rows if row.counts]
    by_status = defaultdict(int)
    for row in counted:
        by_status[row.status] += 1
    times = [row.seconds for row in counted if row.status == COMPLETED and row.seconds]
    median = statistics.median(times) if times else None
    if study.pay_basis == Study.PayBasis.HOUR:
        hourly = cents(study.pay_amount) if times else None
    else:
        hourly = cents(study.pay_amount * SECONDS_PER_HOUR / Decimal(str(median))) if median else None
    return StudyFigures(
        entered=len(counted), completed=by_status[COMPLETED], screened_out=by_status[SCREENED_OUT],
        past_deadline=by_status[PAST_DEADLINE], working=by_status[WORKING], no_consent=study.declined,
        test_entries=sum(1 for row in rows if row.participant.test),
        left_out=sum(1 for row in rows if not row.participant.test and row.participant.unreconciled_at is not None),
        completion_rate=by_status[COMPLETED] / len(counted) if counted else None,
        median_seconds=median, hourly=hourly,
        below_minimum=study.minimum_hourly_rate is not None and hourly is not None and hourly < study.minimum_hourly_rate,
    )


# The payment files (``payment_file``): the panel's bulk bonus format, the ids to approve, the
# participants to review.
BONUS, APPROVE, REVIEW = "bonus", "approve", "review"
PAYMENT_FILES = (BONUS, APPROVE, REVIEW)
REVIEW_HEADER = "participant_id,failed_attention_checks\n"


def payment_file(study: Study, rows: list[ParticipantRow], kind: str) -> str:
    """A payment file of the counted participants with a panel id (neither test entries nor
    left out by the reconciliation): BONUS, the panel's bulk format (``participant id,amount``
    a line, no header, amounts > 0 with two decimals); APPROVE, the ids of those who completed,
    one a line; REVIEW, those who failed at least ``attention_failures`` attention checks (a
    header line, then id and count; never anyone for low accuracy). Raises NotExportable when
    the file would be empty (then saying whether the ids were deleted after payment)."""
    counted = [row for row in rows if row.counts]
    paid = [row for row in counted if row.participant.panel_id]
    if kind == BONUS:
        lines = [f"{row.participant.panel_id},{row.bonus}\n" for row in paid if row.bonus > 0]
    elif kind == APPROVE:
        lines = [f"{row.participant.panel_id}\n" for row in paid if row.status == COMPLETED]
    else:
        lines = [f"{row.participant.panel_id},{row.attention_failed}\n" for row in paid
                 if attention_items(study) and row.attention_failed >= study.attention_failures]
        lines = [REVIEW_HEADER, *lines] if lines else []
    if not lines:
        raise NotExportable([problem("study_ids_deleted" if counted and not paid else "study_nothing_in_file",
                                     "download")])
    return "".join(lines)


def refused_entries(study: Study) -> list[StudyRefusal]:
    """The entries the study refused, newest first."""
    return list(StudyRefusal.objects.filter(study=study))


def studies() -> list[Study]:
    """Every study with its datasets in order and its campaign (two queries)."""
    return list(Study.objects.select_related("campaign").prefetch_related("steps__dataset"))


# The panel's placeholders for its ids in a study's URL (Prolific's: it fills them in).
PANEL_PLACEHOLDERS = ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}")


def entry_link(study: Study, base: str) -> str:
    """The link to give the panel: ``base`` (the absolute URL of /study/<token>/) with the
    study's parameter names, each taking the panel's placeholder."""
    names = (study.participant_parameter, study.study_parameter, study.session_parameter)
    return base + "?" + "&".join(f"{name}={placeholder}" for name, placeholder in zip(names, PANEL_PLACEHOLDERS,
                                                                                     strict=True))


# The statuses in the order the study page lists them.
STATUSES = (WORKING, COMPLETED, SCREENED_OUT, PAST_DEADLINE)


@dataclass(frozen=True)
class StudyPage:
    """What the organizer's study page shows of the participants: the counted ones by status
    (STATUSES order), those the reconciliation left out, the test entries, and the figures."""

    by_status: list[tuple[str, list[ParticipantRow]]]
    left_out: list[ParticipantRow]
    tests: list[ParticipantRow]
    figures: StudyFigures
    payable: bool  # a counted participant still has a panel id


def study_page(study: Study, rows: list[ParticipantRow]) -> StudyPage:
    counted = [row for row in rows if row.counts]
    return StudyPage(
        by_status=[(status, [row for row in counted if row.status == status]) for status in STATUSES],
        left_out=[row for row in rows if not row.participant.test and row.participant.unreconciled_at is not None],
        tests=[row for row in rows if row.participant.test],
        figures=study_figures(study, rows),
        payable=any(row.participant.panel_id for row in counted),
    )
