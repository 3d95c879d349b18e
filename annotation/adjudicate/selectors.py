"""What adjudicators see: the datasets with disagreements, the queue, one item's answers.

A *case* is an item that needs (or had) an adjudicator: not withdrawn, ready (every assigned
annotator has submitted, or the dataset is frozen; a routed dataset's item: k submitted answers) and either a disagreement (two submitted
answers differ after the subtask's normaliser), flagged by an annotator, or already settled.
Its status is ``open`` (never settled), ``settled``, or ``stale`` (a submitted answer changed
after the decision: back in the queue). The queue is the open and stale cases, disagreements
first, then flagged items, each in input order.

Every function runs a fixed number of queries, whatever the size of the dataset: the cases
are found by one hand-written aggregate query over the dataset's answers.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from functools import reduce

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.answers.counted import counted_answers, counted_people, counted_sql, uncounted_sql
from annotation.answers.normalised import normalised_answer
from annotation.core.sql_rows import table
from annotation.models import (
    Adjudication,
    AdjudicationClaim,
    AdjudicationRevision,
    Annotation,
    AnnotationRevision,
    Assignment,
    Dataset,
    Flag,
    GoldAnswer,
    Item,
)
from annotation.subtasks.differences import Differences, differences, gold_answer_fields
from annotation.subtasks.item_fields import annotator_payload
from scoring.agreement import majority_answer

OPEN = "open"


SETTLED = "settled"


STALE = "stale"


def _ready(item: str = "x", dataset: str = "d") -> str:
    """SQL: the item is ready for adjudication: answered, and every assigned annotator has
    submitted (or the dataset is frozen). A routed dataset's item (annotation.annotate.routing)
    is ready at k submitted answers: its assignments are the reservations of whoever opened it,
    and one that lapsed is no answer to wait for."""
    annotations, assignments = table(Annotation), table(Assignment)
    # A scalar count rather than NOT EXISTS: PostgreSQL would hash NOT EXISTS over every
    # assignment of the table, where this is looked up per item by index.
    return f"""(EXISTS (SELECT 1 FROM {annotations} r WHERE r.item_id = {item}.id AND {counted_sql('r')})
        AND ({dataset}.frozen OR CASE WHEN {dataset}.routing THEN (
            SELECT COUNT(*) FROM {annotations} k WHERE k.item_id = {item}.id AND {counted_sql('k')}
        ) >= {dataset}.answers_per_item ELSE (
            SELECT COUNT(*) FROM {assignments} s WHERE s.item_id = {item}.id AND s.annotator_id NOT IN ({uncounted_sql()})
                AND NOT EXISTS (
                SELECT 1 FROM {annotations} b
                WHERE b.item_id = {item}.id AND b.annotator_id = s.annotator_id AND b.status = 'submitted')) = 0 END))"""


def _cases_sql(scope: str) -> str:
    """A CTE ``cases`` (item_id, dataset_id, ordinal, disagreement, flagged, status, claimed_by)
    over one dataset (``scope="dataset"``, parameter: its id), one item (``"item"``: its id) or
    all datasets (``"all"``); one more parameter: now, for the claims' expiry."""
    where = {"dataset": "x.dataset_id = %(scope)s", "item": "x.id = %(scope)s", "all": "TRUE"}[scope]
    items, annotations = table(Item), table(Annotation)
    return f"""
    WITH answered AS (
        SELECT a.item_id, COUNT(DISTINCT a.normalised_answer) AS distinct_answers, MAX(a.submitted_at) AS last_submitted
        FROM {annotations} a JOIN {items} x ON x.id = a.item_id
        WHERE {where} AND {counted_sql('a')}
        GROUP BY a.item_id
    ), flagged AS (
        SELECT DISTINCT f.item_id FROM {table(Flag)} f JOIN {items} x ON x.id = f.item_id
        WHERE {where} AND f.raised_by_id NOT IN ({uncounted_sql()})
    ), cases AS (
        SELECT x.id AS item_id, x.dataset_id, x.ordinal,
               answered.distinct_answers > 1 AS disagreement,
               flagged.item_id IS NOT NULL AS flagged,
               CASE WHEN adj.id IS NULL THEN '{OPEN}'
                    WHEN answered.last_submitted > adj.decided_at THEN '{STALE}'
                    ELSE '{SETTLED}' END AS status,
               claim.adjudicator_id AS claimed_by
        FROM {items} x
        JOIN {table(Dataset)} d ON d.id = x.dataset_id
        JOIN answered ON answered.item_id = x.id
        LEFT JOIN flagged ON flagged.item_id = x.id
        LEFT JOIN {table(Adjudication)} adj ON adj.item_id = x.id
        LEFT JOIN {table(AdjudicationClaim)} claim ON claim.item_id = x.id AND claim.expires_at > %(now)s
        WHERE {where} AND x.withdrawn_at IS NULL
          -- CASE orders the checks: readiness (a count per item) only for the few candidates.
          AND CASE WHEN answered.distinct_answers > 1 OR flagged.item_id IS NOT NULL OR adj.id IS NOT NULL
                   THEN {_ready()} ELSE FALSE END
    )"""


def _disagreement(item: str = "x") -> str:
    """SQL: two submitted answers of the item differ (after the subtask's normaliser)."""
    return f"""((SELECT COUNT(DISTINCT a.normalised_answer) FROM {table(Annotation)} a
                WHERE a.item_id = {item}.id AND {counted_sql('a')}) > 1)"""


def _open_for(item: str = "x") -> str:
    """SQL: the item needs a decision (none yet, or stale) and no other adjudicator holds it."""
    annotations = table(Annotation)
    return f"""(NOT EXISTS (SELECT 1 FROM {table(Adjudication)} j WHERE j.item_id = {item}.id AND NOT EXISTS (
                SELECT 1 FROM {annotations} c
                WHERE c.item_id = {item}.id AND {counted_sql('c')} AND c.submitted_at > j.decided_at))
            AND NOT EXISTS (SELECT 1 FROM {table(AdjudicationClaim)} k
                WHERE k.item_id = {item}.id AND k.expires_at > %(now)s AND k.adjudicator_id <> %(user)s))"""


@dataclass(frozen=True)
class CaseCounts:
    open: int = 0
    stale: int = 0
    settled: int = 0

    @property
    def to_do(self) -> int:
        return self.open + self.stale


@dataclass(frozen=True)
class DatasetCases:
    dataset: Dataset
    subtask_title: str
    counts: CaseCounts


def audit_datasets(user: User) -> list[Dataset]:
    """The datasets whose gold audit the organizer opened to adjudicators, the gold revealed,
    that ``user`` does not annotate, each with ``serving_pools`` (its training and control
    pools, whose audits go with it)."""
    return list(Dataset.objects.filter(adjudicators_audit_gold=True, gold_revealed=True, archived_at__isnull=True,
                                           pool_of__isnull=True).exclude(assignments__annotator=user)
                    .prefetch_related(Prefetch("pools", queryset=Dataset.objects.filter(archived_at__isnull=True)
                                               .order_by("pool_kind"), to_attr="serving_pools")).order_by("name"))


def adjudicator_datasets(user: User) -> list[DatasetCases]:
    """The datasets with cases that ``user`` may adjudicate (none they annotate), with counts."""
    sql = _cases_sql("all") + f"""
    SELECT dataset_id,
           SUM(CASE WHEN status = '{OPEN}' THEN 1 ELSE 0 END),
           SUM(CASE WHEN status = '{STALE}' THEN 1 ELSE 0 END),
           SUM(CASE WHEN status = '{SETTLED}' THEN 1 ELSE 0 END)
    FROM cases GROUP BY dataset_id"""
    with connection.cursor() as cursor:
        cursor.execute(sql, {"now": timezone.now(), "scope": None})
        counts = {row[0]: CaseCounts(*(int(n) for n in row[1:])) for row in cursor.fetchall()}
    # A training or control pool is no dataset of its own to adjudicate: its items have gold.
    datasets = (Dataset.objects.filter(pk__in=counts, archived_at__isnull=True, pool_of__isnull=True)
                .exclude(assignments__annotator=user).distinct().order_by("name"))
    return [DatasetCases(dataset, dataset.subtask_title, counts[dataset.pk]) for dataset in datasets]


def dataset_counts(dataset_id: int) -> CaseCounts:
    sql = _cases_sql("dataset") + f"""
    SELECT SUM(CASE WHEN status = '{OPEN}' THEN 1 ELSE 0 END),
           SUM(CASE WHEN status = '{STALE}' THEN 1 ELSE 0 END),
           SUM(CASE WHEN status = '{SETTLED}' THEN 1 ELSE 0 END)
    FROM cases"""
    with connection.cursor() as cursor:
        cursor.execute(sql, {"now": timezone.now(), "scope": dataset_id})
        row = cursor.fetchone()
    return CaseCounts(*(int(n or 0) for n in row))


def next_case(user: User, dataset_id: int, after_item_id: int | None = None) -> int | None:
    """The item id of the next open or stale case after ``after_item_id`` in queue order
    (wrapping round, never that item itself), skipping items another adjudicator holds.

    Walks the items in input order from that item on and stops at the first case, so it
    costs little wherever the adjudicator is in a large dataset (at most five queries)."""
    params = {"now": timezone.now(), "scope": dataset_id, "user": user.pk, "after": after_item_id or 0}
    disagreement, flagged_only = _disagreement(), f"(EXISTS (SELECT 1 FROM {table(Flag)} f WHERE f.item_id = x.id) AND NOT {_disagreement()})"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT x.ordinal, {disagreement} FROM {table(Item)} x WHERE x.id = %(after)s AND x.dataset_id = %(scope)s",
            params,
        )
        here = cursor.fetchone()
        # The queue is the disagreements, then the flagged items, each in input order: the
        # rest of the current part, the other part, then round to the start of the current one.
        if here is None:
            segments = [(disagreement, -1), (flagged_only, -1)]
        elif here[1]:
            segments = [(disagreement, here[0]), (flagged_only, -1), (disagreement, -1)]
        else:
            segments = [(flagged_only, here[0]), (disagreement, -1), (flagged_only, -1)]
        for condition, after_ordinal in segments:
            cursor.execute(
                f"""SELECT x.id FROM {table(Item)} x JOIN {table(Dataset)} d ON d.id = x.dataset_id
                WHERE x.dataset_id = %(scope)s AND x.ordinal > %(after_ordinal)s AND x.id <> %(after)s
                  AND x.withdrawn_at IS NULL AND {condition} AND {_ready()} AND {_open_for()}
                ORDER BY x.ordinal LIMIT 1""",
                {**params, "after_ordinal": after_ordinal},
            )
            found = cursor.fetchone()
            if found:
                return found[0]
    return None


def item_case_status(item_id: int) -> tuple[str | None, bool, bool]:
    """(status or None when the item is no case, disagreement, flagged) of one item."""
    sql = _cases_sql("item") + " SELECT status, disagreement, flagged FROM cases"
    with connection.cursor() as cursor:
        cursor.execute(sql, {"now": timezone.now(), "scope": item_id})
        row = cursor.fetchone()
    return (row[0], bool(row[1]), bool(row[2])) if row else (None, False, False)


@dataclass(frozen=True)
class ShownAnswer:
    number: int  # k in "Annotator k": the order of the first saves
    label: str  # "Annotator k", or the annotator's name where the organizer shows names
    annotation_id: int
    annotator_id: int
    version: int
    answer: dict
    summary: str  # the answer in a line, in the subtask's terms
    majority: bool = False  # equal (normalised) to the majority answer


def as_text(answer: dict | None) -> str:
    return json.dumps(answer, ensure_ascii=False)


@dataclass(frozen=True)
class Change:
    label: str
    before: dict | None  # None: the answer is new since the decision
    after: dict

    @property
    def before_text(self) -> str:
        return as_text(self.before)

    @property
    def after_text(self) -> str:
        return as_text(self.after)


@dataclass(frozen=True)
class ShownFlag:
    label: str
    comment: str
    resolution_note: str


@dataclass
class AdjudicationCase:
    dataset: Dataset
    item: Item
    status: str | None  # OPEN, SETTLED, STALE, or None when the item is no case (yet)
    disagreement: bool
    answers: list[ShownAnswer]
    flags: list[ShownFlag]
    differences: Differences
    adjudication: Adjudication | None
    changes: list[Change] = field(default_factory=list)  # since the decision, when stale
    majority: dict | None = None
    majority_reason: str | None = None
    gold: dict | None = None  # only once the dataset's gold is revealed to adjudicators
    gold_summary: str = ""  # the gold in the subtask's terms, as the answers are summarised

    @property
    def majority_summary(self) -> str:
        """The majority answer in the subtask's terms: the summary of an answer that gave it
        (a majority of parts that no answer gave whole is shown as its fields)."""
        return next((shown.summary for shown in self.answers if shown.majority), as_text(self.majority))

    @property
    def version(self) -> int:
        return self.adjudication.version if self.adjudication else 0

    @property
    def payload(self) -> dict:
        """The item as adjudicators see it, on the page and in the API: the fields its subtask's
        input schema names, as annotators see it (other keys of the line are organizers')."""
        return annotator_payload(self.dataset.subtask, self.item.payload)

    @property
    def decision_text(self) -> str:
        return as_text(self.adjudication.answer if self.adjudication else None)


def items_with_dataset() -> QuerySet[Item]:
    """Items, each with its dataset (a save or partial of the item page, or the API's case,
    reads both)."""
    return Item.objects.select_related("dataset")


def adjudication_case(dataset: Dataset, item_id: int) -> AdjudicationCase | None:
    """One item of ``dataset`` with its submitted answers (anonymised unless the organizer
    shows names), flags, differences, decision and, once revealed, gold. None: no such item,
    or it is withdrawn."""
    item = Item.objects.filter(pk=item_id, dataset=dataset, withdrawn_at__isnull=True).first()
    if item is None:
        return None
    status, disagreement, _flagged = item_case_status(item.pk)
    annotations = list(
        counted_answers(Annotation.objects.filter(item=item))
        .select_related("annotator")
        .order_by("created_at", "pk")
    )
    names = {
        annotation.annotator_id: annotation.annotator.get_username()
        if dataset.adjudicators_see_names
        else _("Annotator %(number)s") % {"number": number}
        for number, annotation in enumerate(annotations, start=1)
    }
    majority, reason = majority_answer(dataset.subtask, [a.answer for a in annotations], item.payload)
    normalised_majority = normalised_answer(dataset.subtask, majority) if majority is not None else None
    gold = (
        GoldAnswer.objects.filter(item=item).values_list("payload", flat=True).first()
        if dataset.gold_revealed else None
    )
    # The key is shown among the answers (in the subtask's terms), counted in no tally.
    shown_differences = differences(
        dataset.subtask, item.payload, [(names[a.annotator_id], a.answer) for a in annotations],
        reference=(_("Answer key"), gold_answer_fields(dataset.subtask, gold)) if gold is not None else None,
    )
    answers = [
        ShownAnswer(
            number=number,
            label=names[annotation.annotator_id],
            annotation_id=annotation.pk,
            annotator_id=annotation.annotator_id,
            version=annotation.version,
            answer=annotation.answer,
            summary=summary,
            majority=annotation.normalised_answer == normalised_majority,
        )
        for number, (annotation, summary) in enumerate(zip(annotations, shown_differences.summaries), start=1)
    ]
    flags = [
        ShownFlag(
            label=names.get(flag.raised_by_id, _("an annotator")),
            comment=flag.comment,
            resolution_note=flag.resolution_note,
        )
        for flag in counted_people(Flag.objects.filter(item=item), "raised_by").order_by("created_at")
    ]
    adjudication = Adjudication.objects.filter(item=item).first()
    case = AdjudicationCase(
        dataset=dataset,
        item=item,
        status=status,
        disagreement=disagreement,
        answers=answers,
        flags=flags,
        differences=shown_differences,
        adjudication=adjudication,
        majority=majority,
        majority_reason=reason,
    )
    if status == STALE:
        case.changes = _changes(adjudication, annotations, names)
    if gold is not None:
        case.gold, case.gold_summary = gold, shown_differences.summaries[len(annotations)]
    return case


def _changes(adjudication: Adjudication, annotations: list[Annotation], names: dict[int, str]) -> list[Change]:
    """The answers submitted since the decision, with what the decision saw of each."""
    seen = {int(key): version for key, version in adjudication.seen_versions.items()}
    changed = [a for a in annotations if a.submitted_at and a.submitted_at > adjudication.decided_at]
    wanted = [Q(annotation_id=a.pk, version=seen[a.pk]) for a in changed if a.pk in seen]
    before = (
        {r.annotation_id: r.answer for r in AnnotationRevision.objects.filter(reduce(operator.or_, wanted))}
        if wanted
        else {}
    )
    return [Change(names[a.annotator_id], before.get(a.pk), a.answer) for a in changed]


def previous_decision(user: User, dataset_id: int, item_id: int) -> int | None:
    """The item of the decision ``user`` made before the one on ``item_id`` (or their latest)."""
    decisions = AdjudicationRevision.objects.filter(
        adjudicator=user, adjudication__item__dataset_id=dataset_id, adjudication__item__withdrawn_at__isnull=True
    ).exclude(adjudication__item_id=item_id)
    own = AdjudicationRevision.objects.filter(adjudicator=user, adjudication__item_id=item_id).order_by("-pk").first()
    if own is not None:
        decisions = decisions.filter(pk__lt=own.pk)
    latest = decisions.order_by("-pk").values_list("adjudication__item_id", flat=True).first()
    return latest


def open_disagreements(dataset_id: int) -> list[int]:
    """The item ids of the dataset's open or stale disagreements."""
    sql = _cases_sql("dataset") + f" SELECT item_id FROM cases WHERE disagreement AND status IN ('{OPEN}', '{STALE}')"
    with connection.cursor() as cursor:
        cursor.execute(sql, {"now": timezone.now(), "scope": dataset_id})
        return [row[0] for row in cursor.fetchall()]


@dataclass(frozen=True)
class QueueEntry:
    item_id: int
    external_id: str
    status: str
    disagreement: bool
    flagged: bool
    claimed_by_other: bool


def queue_entries(user: User, dataset_id: int) -> list[QueueEntry]:
    """The dataset's open and stale cases in queue order."""
    sql = _cases_sql("dataset") + f"""
    SELECT c.item_id, x.external_id, c.status, c.disagreement, c.flagged, c.claimed_by
    FROM cases c JOIN {table(Item)} x ON x.id = c.item_id
    WHERE c.status IN ('{OPEN}', '{STALE}')
    ORDER BY CASE WHEN c.disagreement THEN 0 ELSE 1 END, c.ordinal"""
    with connection.cursor() as cursor:
        cursor.execute(sql, {"now": timezone.now(), "scope": dataset_id})
        rows = cursor.fetchall()
    return [
        QueueEntry(item_id, external_id, status, bool(disagreement), bool(flagged), claimed not in (None, user.pk))
        for item_id, external_id, status, disagreement, flagged, claimed in rows
    ]


def adjudicated_answers(dataset: Dataset, excluded: Collection[int] = ()) -> dict[int, dict]:
    """The adjudicated source of the dataset, {item id: answer fields}: the decision where one
    holds (not stale), else the common answer of a ready item whose submitted answers all
    agree. Withdrawn items, open and stale disagreements are left out.

    ``excluded`` (user ids): annotators whose answers do not count (the report's option for
    those below the control threshold): the common answer is that of the others, and an open
    disagreement that was theirs alone no longer keeps an item out; decisions stay."""
    return adjudicated_source(dataset, excluded)[0]


def adjudicated_source(dataset: Dataset, excluded: Collection[int] = ()) -> tuple[dict[int, dict], dict[int, str]]:
    """``adjudicated_answers`` and {item id: OPEN, STALE or SETTLED} of every case of the
    dataset (which no exclusion changes), the cases worked out once (the adjudicated export
    needs both; three queries)."""
    leave_out = f"AND a.annotator_id NOT IN ({', '.join(str(int(pk)) for pk in excluded)})" if excluded else ""
    # Without exclusions every case keeps its item out of the agreed ones; with them, an open
    # case that is no flag is a disagreement, which the others' agreement settles.
    blocking_case = f"AND (c.status <> '{OPEN}' OR c.flagged)" if excluded else ""
    # Readiness is a property of the item: checked once per agreed item, not once per answer.
    sql = _cases_sql("dataset") + f"""
    , agreed AS (
        SELECT a.item_id, MIN(a.id) AS annotation_id
        FROM {table(Annotation)} a JOIN {table(Item)} x ON x.id = a.item_id
        WHERE x.dataset_id = %(scope)s AND x.withdrawn_at IS NULL AND {counted_sql('a')} {leave_out}
        GROUP BY a.item_id HAVING COUNT(DISTINCT a.normalised_answer) = 1
    )
    SELECT c.item_id, NULL, c.status FROM cases c
    UNION ALL
    SELECT g.item_id, g.annotation_id, NULL
    FROM agreed g JOIN {table(Item)} x ON x.id = g.item_id JOIN {table(Dataset)} d ON d.id = x.dataset_id
    WHERE {_ready()} AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.item_id = g.item_id {blocking_case})"""
    with connection.cursor() as cursor:
        cursor.execute(sql, {"now": timezone.now(), "scope": dataset.pk})
        rows = cursor.fetchall()
    statuses = {item_id: status for item_id, _annotation_id, status in rows if status is not None}
    decided = [item_id for item_id, status in statuses.items() if status == SETTLED]
    taken = {annotation_id: item_id for item_id, annotation_id, _status in rows if annotation_id is not None}
    answers = dict(Adjudication.objects.filter(item_id__in=decided).values_list("item_id", "answer"))
    answers.update(Annotation.objects.filter(pk__in=taken).values_list("item_id", "answer"))
    return answers, statuses


@dataclass(frozen=True)
class CaseRow:
    """One case of a dataset as organizers see it: who settled it and when (none while open)."""

    item_id: int
    external_id: str
    status: str
    disagreement: bool
    flagged: bool
    settled_by: str | None  # None: the majority, settled automatically, or not settled
    decided_at: datetime | None


def dataset_cases(dataset_id: int) -> list[CaseRow]:
    """Every case of the dataset (open, stale and settled) in queue order: one query."""
    sql = _cases_sql("dataset") + f"""
    SELECT c.item_id, x.external_id, c.status, c.disagreement, c.flagged, u.username, adj.decided_at
    FROM cases c JOIN {table(Item)} x ON x.id = c.item_id
    LEFT JOIN {table(Adjudication)} adj ON adj.item_id = c.item_id
    LEFT JOIN {table(User)} u ON u.id = adj.adjudicator_id
    ORDER BY CASE c.status WHEN '{OPEN}' THEN 0 WHEN '{STALE}' THEN 1 ELSE 2 END,
             CASE WHEN c.disagreement THEN 0 ELSE 1 END, c.ordinal"""
    with connection.cursor() as cursor:
        cursor.execute(sql, {"now": timezone.now(), "scope": dataset_id})
        return [CaseRow(row[0], row[1], row[2], bool(row[3]), bool(row[4]), row[5], row[6]) for row in cursor.fetchall()]
