"""What training rounds, qualification and control items show: the annotator's round and its
feedback, the organizer's table of who qualified on which try, control-item accuracy over
time, and the procedure as the human-baseline report states it (``training_procedure``).

Training answers are TrainingAnswer rows and control items belong to the control pool, a
dataset of its own: neither is ever an answer to an item of the dataset, so exports,
agreement and reports, which read the dataset's own items, never see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

from django.contrib.auth.models import AbstractBaseUser, User
from django.db.models import F, Q
from django.db.models.expressions import RawSQL

from annotation.annotate import qualification
from annotation.answers.counted import counted_people
from annotation.core import sql_rows
from annotation.datasets.auditing import audit_overrides
from annotation.models import Annotation, Dataset, Explanation, GoldAnswer, Item, TrainingAnswer, TrainingRound
from annotation.subtasks.differences import Differences, differences, gold_answer_fields
from annotation.subtasks.widgets import widget_for
from scoring.subtasks import get_subtask


def pool(dataset: Dataset | int, kind: str) -> Dataset | None:
    """The pool of that kind serving the dataset (archived ones serve no more)."""
    return Dataset.objects.filter(pool_of=dataset, pool_kind=kind, archived_at__isnull=True).first()


def archived_pools(dataset: Dataset) -> list[Dataset]:
    return list(Dataset.objects.filter(pool_of=dataset, archived_at__isnull=False).order_by("-archived_at"))


def training_items(dataset: Dataset | int) -> list[Item]:
    """The training pool's items in input order (the order of every round), with their explanations."""
    return list(
        Item.objects.filter(dataset__pool_of=dataset, dataset__pool_kind=Dataset.PoolKind.TRAINING,
                            dataset__archived_at__isnull=True)
        .select_related("explanation").order_by("ordinal")
    )


@dataclass(frozen=True)
class RoundState:
    round: TrainingRound
    items: list[Item]
    answered: dict[int, TrainingAnswer]  # item id -> the answer in this round

    @property
    def next_number(self) -> int | None:
        """The 1-based number of the first unanswered item (None: all answered)."""
        return next((number for number, item in enumerate(self.items, 1) if item.pk not in self.answered), None)


def round_state(training_round: TrainingRound) -> RoundState:
    """The round's items and its answers; a round not started yet (``current_round``) has none."""
    items = training_items(training_round.dataset_id)
    answers = training_round.answers.all() if training_round.pk is not None else []
    answered = {answer.item_id: answer for answer in answers}
    return RoundState(training_round, items, answered)


@dataclass(frozen=True)
class Feedback:
    answer: TrainingAnswer
    gold: dict  # the gold answer fields
    accepted: list[str]  # every answer text the gold accepts (the scorer's accepted_forms: numerals)
    explanation: str
    differences: Differences
    # Each answer as the item page's widget says it: a letter with the sentence it stands for.
    yours_summary: str
    gold_summary: str


def feedback(answer: TrainingAnswer, your_label: str, gold_label: str) -> Feedback:
    """The gold answer of a training item beside the annotator's submitted answer, in the
    subtask's own terms (adjudication's difference view). Only for a stored TrainingAnswer:
    gold reaches the annotator after they answered, and only for training items."""
    item, subtask = answer.item, answer.round.dataset.subtask
    gold_line = GoldAnswer.objects.get(item=item).payload
    gold = gold_answer_fields(subtask, gold_line)
    explanation = Explanation.objects.filter(item=item).values_list("text", flat=True).first() or ""
    return Feedback(
        answer=answer,
        gold=gold,
        accepted=get_subtask(subtask).accepted_forms(gold_line),
        explanation=explanation,
        differences=differences(subtask, item.payload, [(your_label, answer.answer)], reference=(gold_label, gold)),
        yours_summary=widget_for(subtask).summary(item.payload, answer.answer),
        gold_summary=widget_for(subtask).summary(item.payload, gold),
    )


@dataclass(frozen=True)
class AnnotatorQualification:
    annotator: User
    rounds: list[TrainingRound]  # by attempt
    qualified: bool
    qualified_on: int | None  # the attempt whose score passed (None: none passed)
    released: bool

    @property
    def latest(self) -> TrainingRound | None:
        return self.rounds[-1] if self.rounds else None


def qualification_table(dataset: Dataset) -> list[AnnotatorQualification]:
    """Every annotator with an assignment or a training round in the dataset, by username."""
    rounds: dict[int, list[TrainingRound]] = {}
    for training_round in TrainingRound.objects.filter(dataset=dataset).order_by("attempt"):
        rounds.setdefault(training_round.annotator_id, []).append(training_round)
    users = User.objects.filter(
        pk__in=set(rounds) | set(dataset.assignments.values_list("annotator_id", flat=True))
    ).annotate(qualified=RawSQL(qualification.qualified_sql(f"{sql_rows.table(User)}.id", str(int(dataset.pk))), []))
    table = []
    for user in users.order_by("username"):
        mine = rounds.get(user.pk, [])
        passed = [r.attempt for r in mine if qualification.passed(r, dataset)]
        table.append(AnnotatorQualification(
            annotator=user,
            rounds=mine,
            qualified=bool(user.qualified),
            qualified_on=passed[0] if passed else None,
            released=bool(mine and mine[-1].released_at),
        ))
    return table


@dataclass
class ControlSeries:
    annotator: str
    times: list[datetime] = field(default_factory=list)
    correctness: list[float] = field(default_factory=list)
    items: list[str] = field(default_factory=list)  # the control items' ids, in the same order

    @property
    def accuracy(self) -> list[float]:
        """The running mean: after each control answer, the mean correctness so far, each as
        ``statistics.fmean`` of the answers so far gives it (the sum rounded once, then divided:
        discourse's fractional correctness is summed exactly, whatever the order)."""
        running, total = [], Fraction(0)
        for count, value in enumerate(self.correctness, 1):
            total += Fraction(value)
            running.append(float(total) / count)
        return running

    @property
    def current(self) -> float | None:
        return self.accuracy[-1] if self.correctness else None


CONTROL_GOLD_NOTE = ("control accuracy is scored on the audited gold: the gold audit's corrections count, "
                     "and a control item it withdrew counts for no one")


def control_accuracy(dataset: Dataset) -> list[ControlSeries]:
    """Per annotator (by username), their submitted answers to control items in the order they
    were submitted, each scored against its audited gold (``CONTROL_GOLD_NOTE``) like a
    training answer."""
    subtask = get_subtask(dataset.subtask)
    overrides = audit_overrides(Q(item__dataset__pool_of=dataset, item__dataset__pool_kind=Dataset.PoolKind.CONTROL))
    answers = (
        Annotation.objects.filter(
            status=Annotation.Status.SUBMITTED,
            item__dataset__pool_of=dataset,
            item__dataset__pool_kind=Dataset.PoolKind.CONTROL,
            item__assignments__dataset=dataset,
            item__assignments__annotator=F("annotator"),
        )
        .order_by("annotator__username", "submitted_at", "pk")
        .values_list("annotator__username", "submitted_at", "answer", "item__gold__payload", "item_id", "item__external_id")
    )
    series: dict[str, ControlSeries] = {}
    for username, submitted_at, answer, gold, item_id, external_id in answers:
        if item_id in overrides:
            gold = overrides[item_id].gold(gold)
            if gold is None:
                continue
        line = series.setdefault(username, ControlSeries(username))
        line.times.append(submitted_at)
        line.correctness.append(subtask.correctness(gold, subtask.normalise(answer)))
        line.items.append(external_id)
    return list(series.values())


def control_alerts(dataset: Dataset, series: list[ControlSeries]) -> list[ControlSeries]:
    """The annotators whose control accuracy so far is below the dataset's threshold."""
    if dataset.threshold is None:
        return []
    return [line for line in series if line.current is not None and line.current < dataset.threshold]


def below_control_threshold(dataset: Dataset, series: list[ControlSeries] | None = None) -> list[str]:
    """The usernames whose control accuracy so far is below the dataset's threshold, sorted:
    whom the report's option leaves out of the majority and adjudicated sources."""
    series = control_accuracy(dataset) if series is None else series
    return sorted(line.annotator for line in control_alerts(dataset, series))


def training_procedure(dataset: Dataset) -> dict:
    """The training and control procedure of the dataset, as the human-baseline report states it.

    Keys: ``training_items`` (number), ``threshold`` (or None), ``annotators``: one per
    annotator by username with ``tries`` (the score of each finished try, in order),
    ``qualified_on_try`` (the first try at or above the threshold, None if none),
    ``released`` (let through by an organizer), ``control_answers`` and ``control_accuracy``
    (None without control answers) and ``below_control_threshold``; ``control_rate`` (one in
    N, 0: none), ``control_items`` (number) and ``below_control_threshold`` (usernames, for
    the report's option to leave them out of majority and adjudicated sources);
    ``control_gold``: which gold control accuracy is scored on (the audited one). Only the
    annotators who count (annotation.answers.counted), as in the report's other parts.
    """
    table = qualification_table(dataset)
    counted = set(counted_people(User.objects.filter(pk__in=[row.annotator.pk for row in table]), "pk")
                  .values_list("username", flat=True))
    series = {line.annotator: line for line in control_accuracy(dataset) if line.annotator in counted}
    below = set(below_control_threshold(dataset, list(series.values())))
    control_pool = pool(dataset, Dataset.PoolKind.CONTROL)
    annotators = []
    for row in table:
        if row.annotator.get_username() not in counted:
            continue
        name = row.annotator.get_username()
        line = series.get(name)
        annotators.append({
            "annotator": name,
            "tries": [r.score for r in row.rounds if r.finished_at is not None],
            "qualified_on_try": row.qualified_on,
            "released": row.released,
            "control_answers": len(line.correctness) if line else 0,
            "control_accuracy": line.current if line else None,
            "below_control_threshold": name in below,
        })
    return {
        "training_items": len(training_items(dataset)),
        "threshold": dataset.threshold,
        "control_rate": dataset.control_rate,
        "control_items": control_pool.items.count() if control_pool else 0,
        "annotators": annotators,
        "below_control_threshold": sorted(below),
        "control_gold": CONTROL_GOLD_NOTE,
    }


def latest_round(dataset: Dataset | int, annotator: AbstractBaseUser) -> TrainingRound | None:
    return TrainingRound.objects.filter(dataset=dataset, annotator=annotator).order_by("-attempt").first()


def current_round(dataset: Dataset, annotator: AbstractBaseUser) -> TrainingRound:
    """The annotator's latest training round of the dataset; if they have none, their first
    round as it will be once started, unsaved (``pk`` None, no answers): pages draw it as a
    fresh round, and their first training answer starts it
    (``services.answer_training_item``). Reading it writes nothing."""
    latest = latest_round(dataset, annotator)
    if latest is not None:
        return latest
    return TrainingRound(dataset=dataset, annotator=annotator, attempt=1)
