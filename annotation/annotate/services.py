"""An annotator's writes: saving answers (drafts and submits), skipping, flagging.

One service for the item page and the API, so both validate, version and time answers alike.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache

from django.contrib.auth.base_user import AbstractBaseUser
from django.core import signing
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotation.adjudicate.services import settle_by_majority
from annotation.annotate import routing
from annotation.annotate.queue import ItemPage
from annotation.answers.normalised import normalised_answer
from annotation.answers.refusals import _shape_refusals, answer_refusals
from annotation.core import sql_rows
from annotation.core.errors import DatasetFrozen, ItemWithdrawn, NeedsConfirmation, NotQualified, Refused, StaleVersion
from annotation.core.storable import unstorable
from annotation.models import Annotation, AnnotationRevision, Assignment, Flag
from annotation.subtasks import limits
from annotation.subtasks.problem_texts import for_annotator
from annotation.subtasks.rules import rule_caution
from scoring.problems import Problem
from scoring.validation import draft_problems

CLOCK_SALT = "annotation.active-time-clock"


@dataclass(frozen=True)
class SaveOutcome:
    annotation: Annotation
    changed: bool  # False: the same answer was already stored, nothing was written


def _now_ms() -> int:
    return int(time.time() * 1000)


def start_clock(page: ItemPage) -> str:
    """A signed note of when this page (or save) was served, for crediting active time."""
    return signing.dumps([page.annotator_id, page.item_id, _now_ms()], salt=CLOCK_SALT)


def _clock_started_ms(token: str | None, page: ItemPage) -> int | None:
    if not token:
        return None
    try:
        user_id, item_id, started_ms = signing.loads(token, salt=CLOCK_SALT)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if user_id != page.annotator_id or item_id != page.item_id:
        return None
    return started_ms


def _credited_ms(claimed_ms: int, started_ms: int | None, annotation: Annotation | None) -> int:
    """The claimed active time, never more than the wall-clock time since the later of the
    page being served and the last save (no clock and no earlier save: nothing is credited)."""
    since = [started_ms] if started_ms is not None else []
    if annotation is not None:
        since.append(int(annotation.updated_at.timestamp() * 1000))
    if not since:
        return 0
    return max(0, min(claimed_ms, _now_ms() - max(since)))


def _refusals(page: ItemPage, answer: object, submit: bool) -> list[Problem]:
    if submit:
        return answer_refusals(page.subtask, answer, page.payload)
    return _shape_refusals(page.subtask, answer, page.payload) or [
        for_annotator(problem) for problem in draft_problems(page.subtask, answer)
    ]


def _locked_annotation(page: ItemPage) -> Annotation | None:
    """The stored answer to the assignment's item, locked until the transaction ends (the
    ORM's select_for_update, hand-written: building that query took longer than running it)."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {sql_rows.columns(Annotation, 'a')} FROM {sql_rows.table(Annotation)} a"
            f" WHERE a.item_id = %s AND a.annotator_id = %s{lock}",
            [page.item_id, page.annotator_id],
        )
        row = cursor.fetchone()
    return None if row is None else sql_rows.instance(Annotation, row)


# What a save writes: every field of a new annotation, the answer's fields of a stored one, a revision.
INSERTED_FIELDS = (
    "item_id", "annotator_id", "answer", "status", "active_ms", "version", "created_at", "updated_at", "submitted_at",
    "normalised_answer", "metadata",
)


UPDATED_FIELDS = (
    "answer", "status", "active_ms", "version", "submitted_at", "normalised_answer", "metadata", "updated_at",
)


REVISION_FIELDS = ("annotation_id", "version", "answer", "status", "active_ms", "created_at")


# The annotation's fields its revision copies, in REVISION_FIELDS' order.
REVISED_FIELDS = ("id", "version", "answer", "status", "active_ms", "created_at")


def save_answer(
    *,
    page: ItemPage,
    answer: object,
    submit: bool,
    based_on_version: int,
    active_ms: int = 0,
    clock: str | None = None,
    confirmed: bool = False,
) -> SaveOutcome:
    """Store the annotator's answer to an assigned item as a draft or submitted.

    ``based_on_version`` is the version the annotator last saw (0: none yet). Sending what is
    already stored succeeds and writes nothing; a different answer based on an old version is
    refused (StaleVersion), as is any change once the dataset is frozen (DatasetFrozen) or the
    item withdrawn (ItemWithdrawn). Every real save bumps the version and appends an
    AnnotationRevision. A submit the subtask's rules caution about is refused
    (NeedsConfirmation) unless ``confirmed``; a confirmed one keeps the caution's metadata
    with the annotation (any other save clears it).
    """
    metadata = _checked(page, answer, submit, confirmed)
    if not (submit and page.routed):
        return _stored(page, answer, submit, based_on_version, active_ms, clock, metadata)
    return _submitted_and_counted(page, answer, based_on_version, active_ms, clock, metadata)


def _checked(page: ItemPage, answer: object, submit: bool, confirmed: bool) -> dict:
    """The save's refusals raised (save_answer's); else the metadata the answer is kept with."""
    if not page.qualified:
        raise NotQualified
    if page.frozen:
        raise DatasetFrozen
    if page.withdrawn:
        raise ItemWithdrawn
    refusals = _refusals(page, answer, submit)
    if refusals:
        raise Refused(refusals)
    caution = rule_caution(page.subtask, answer, page.payload) if submit else None
    if caution is not None and not confirmed:
        raise NeedsConfirmation([caution.problem])
    return caution.metadata if caution is not None else {}


def _submitted_and_counted(
    page: ItemPage, answer: object, based_on_version: int, active_ms: int, clock: str | None, metadata: dict
) -> SaveOutcome:
    # A routed item's first submitted answer moves its load from reserved to submitted, in the
    # same transaction as the answer (on PostgreSQL, a first save: in its one statement).
    first = _first_save(page, answer, True, active_ms, clock, metadata, counted=page)
    if first is not None:
        return first
    with transaction.atomic():
        outcome = _stored(page, answer, True, based_on_version, active_ms, clock, metadata)
        if outcome.changed and page.answer_status != Annotation.Status.SUBMITTED and outcome.annotation.version == (
            page.answer_version + 1
        ):
            routing.count_submission(page)
    return outcome


def submit_and_reserve_next(
    annotator: AbstractBaseUser,
    *,
    page: ItemPage,
    answer: object,
    based_on_version: int,
    active_ms: int = 0,
    clock: str | None = None,
    confirmed: bool = False,
) -> tuple[SaveOutcome, routing.Next | None]:
    """Submit the answer to a routed item (as save_answer) and reserve the annotator's next
    item of the dataset (as routing.next_item), committed together: save & next's cost under
    load was its round trips and commits. The usual first answer (PostgreSQL) is stored,
    counted and followed by the choice in one statement, outside a transaction; otherwise the
    two run in one transaction. Either way the answer's counter is locked before the choice
    locks the annotator's routed row and then a counter it skips when locked, so two save &
    nexts never wait on each other in a cycle. A choice that fails takes the answer back with
    it; the page then keeps the answer and says that the save failed."""
    metadata = _checked(page, answer, True, confirmed)
    if page.answer_status is None and routing.chosen_in_one_statement(page.dataset_id):
        first = _first_save_with_choice(page, answer, active_ms, clock, metadata)
        if first is not None:
            outcome, served = first
            return outcome, served or routing.next_item(annotator, page.dataset_id)
    with transaction.atomic():
        outcome = _submitted_and_counted(page, answer, based_on_version, active_ms, clock, metadata)
        return outcome, routing.next_item(annotator, page.dataset_id)


def _first_save_with_choice(
    page: ItemPage, answer: object, active_ms: int, clock: str | None, metadata: dict
) -> tuple[SaveOutcome, routing.Next | None] | None:
    """The first submitted answer stored and counted, and the annotator's next item reserved,
    in one PostgreSQL statement: the outcome, and the next item (None: the choice is left to
    next_item). None, having written nothing, when the item had an answer of the annotator
    meanwhile or the choice raced another request of theirs (its reservation refused by the
    schema, as in routing._served_in_one_statement): then the transaction's way decides."""
    status = Annotation.Status.SUBMITTED
    annotation = _new_annotation(page, answer, status, normalised_answer(page.subtask, answer), metadata, active_ms,
                                 clock)
    now = timezone.now()
    parameters = [*sql_rows.prepared(annotation, INSERTED_FIELDS), *routing.counted_parameters("saved", page, now),
                  *routing.reserved_after_count_parameters(page, now)]
    try:
        # A savepoint only inside a transaction (a test's): outside, the statement is one.
        with transaction.atomic() if connection.in_atomic_block else nullcontext():
            with connection.cursor() as cursor:
                cursor.execute(_first_save_with_choice_sql(), parameters)
                row = cursor.fetchone()
    except IntegrityError:
        return None
    if row is None:
        return None
    annotation_id, position, reserved_until = row
    sql_rows.stored(annotation, annotation_id)
    served = None if position is None else routing.Next(routing.ITEM, position, reserved_until)
    return _saved(page, annotation, True), served


def _stored(
    page: ItemPage, answer: object, submit: bool, based_on_version: int, active_ms: int, clock: str | None,
    metadata: dict,
) -> SaveOutcome:
    status = Annotation.Status.SUBMITTED if submit else Annotation.Status.DRAFT
    try:
        first = _first_save(page, answer, submit, active_ms, clock, metadata)
        if first is not None:
            return first
        normalised = normalised_answer(page.subtask, answer) if submit else ""
        with transaction.atomic():
            annotation = _locked_annotation(page)
            if (
                annotation is not None
                and annotation.answer == answer
                and annotation.status == status
                and annotation.metadata == metadata
            ):
                return SaveOutcome(annotation, changed=False)
            if annotation is not None and annotation.version != based_on_version:
                raise StaleVersion(annotation)
            if annotation is not None and annotation.status == Annotation.Status.SUBMITTED and not submit:
                raise Refused.of("submitted_already")
            # Hand-written writes (annotation.core.sql_rows): the ORM's took longer to build than to run.
            if annotation is None:
                annotation = _new_annotation(page, answer, status, normalised, metadata, active_ms, clock)
                sql_rows.insert(annotation, INSERTED_FIELDS)
            else:
                annotation.answer = answer
                annotation.status = status
                annotation.active_ms += _credited_ms(active_ms, _clock_started_ms(clock, page), annotation)
                annotation.version += 1
                annotation.normalised_answer = normalised
                annotation.metadata = metadata
                annotation.updated_at = timezone.now()
                if submit:
                    annotation.submitted_at = annotation.updated_at
                sql_rows.update(annotation, UPDATED_FIELDS)
            revision = AnnotationRevision(
                annotation_id=annotation.pk,
                version=annotation.version,
                answer=answer,
                status=status,
                active_ms=annotation.active_ms,
                created_at=annotation.updated_at,
            )
            sql_rows.insert(revision, REVISION_FIELDS)
    except IntegrityError:
        # A first save from another tab created the annotation between our read and write.
        current = Annotation.objects.get(item_id=page.item_id, annotator_id=page.annotator_id)
        if current.answer == answer and current.status == status and current.metadata == metadata:
            return SaveOutcome(current, changed=False)
        raise StaleVersion(current) from None
    return _saved(page, annotation, submit)


def _first_save(
    page: ItemPage, answer: object, submit: bool, active_ms: int, clock: str | None, metadata: dict,
    counted: ItemPage | None = None,
) -> SaveOutcome | None:
    """Nothing was stored when the page was read: on PostgreSQL, the one-statement first save
    (``counted``: the routed item's answer counted in it); None when it did not apply or the
    item had an answer meanwhile (then the locking path decides)."""
    if page.answer_status is not None or connection.vendor != "postgresql":
        return None
    status = Annotation.Status.SUBMITTED if submit else Annotation.Status.DRAFT
    normalised = normalised_answer(page.subtask, answer) if submit else ""
    annotation = _new_annotation(page, answer, status, normalised, metadata, active_ms, clock)
    return _saved(page, annotation, submit) if _stored_as_first(annotation, counted) else None


def _saved(page: ItemPage, annotation: Annotation, submit: bool) -> SaveOutcome:
    if submit and page.auto_majority:
        settle_by_majority(page.item_id)
    return SaveOutcome(annotation, changed=True)


def _new_annotation(
    page: ItemPage, answer: dict, status: str, normalised: str, metadata: dict, active_ms: int, clock: str | None
) -> Annotation:
    """The first answer to the assignment's item, not stored yet."""
    now = timezone.now()
    return Annotation(
        item_id=page.item_id,
        annotator_id=page.annotator_id,
        answer=answer,
        status=status,
        active_ms=_credited_ms(active_ms, _clock_started_ms(clock, page), None),
        version=1,
        created_at=now,
        updated_at=now,
        submitted_at=now if status == Annotation.Status.SUBMITTED else None,
        normalised_answer=normalised,
        metadata=metadata,
    )


def _saved_cte() -> str:
    """The first save's insert of the annotation, as the CTE ``saved`` (no row: it had one)."""
    return (
        f"saved AS ({sql_rows.insert_sql(Annotation, INSERTED_FIELDS)}"
        f" ON CONFLICT ({sql_rows.column_list(Annotation, ('item_id', 'annotator_id'))}) DO NOTHING"
        f" RETURNING {sql_rows.column_list(Annotation, REVISED_FIELDS)})"
    )


def _revision_insert() -> str:
    return (
        f"INSERT INTO {sql_rows.table(AnnotationRevision)} ({sql_rows.column_list(AnnotationRevision, REVISION_FIELDS)})"
        f" SELECT * FROM saved RETURNING {sql_rows.column_list(AnnotationRevision, ('annotation_id',))}"
    )


@cache
def _first_save_sql() -> str:
    return f"WITH {_saved_cte()} {_revision_insert()}"


@cache
def _first_save_with_choice_sql() -> str:
    return (
        f"WITH {_saved_cte()}, revised AS ({_revision_insert()}), {routing.counted_after_sql('saved')},"
        f" {routing.reserved_after_count_sql()}"
        " SELECT v.annotation_id, n.position, n.reserved_until FROM revised v LEFT JOIN reserved_next n ON TRUE"
    )


@cache
def _first_counted_save_sql() -> str:
    return f"WITH {_saved_cte()}, revised AS ({_revision_insert()}), {routing.counted_after_sql('saved')} SELECT * FROM revised"


def _stored_as_first(annotation: Annotation, counted: ItemPage | None = None) -> bool:
    """PostgreSQL: store the first answer to an item and its revision in one statement, which
    is atomic by itself: no transaction to open and commit, no row to lock (one round trip to
    the database instead of five); with ``counted`` (a routed item's page), the answer counted
    in the same statement (annotation.annotate.routing.count_submission). False, and nothing
    written, when the item already has an answer of the annotator (another tab saved since the
    page was read): then the locking path decides."""
    parameters = sql_rows.prepared(annotation, INSERTED_FIELDS)
    with connection.cursor() as cursor:
        if counted is None:
            cursor.execute(_first_save_sql(), parameters)
        else:
            cursor.execute(_first_counted_save_sql(), [*parameters, *routing.counted_parameters("saved", counted, timezone.now())])
        row = cursor.fetchone()
    if row is None:
        return False
    sql_rows.stored(annotation, row[0])
    return True


def skip(page: ItemPage) -> None:
    """Send the item to the end of the annotator's queue (it keeps its number)."""
    Assignment.objects.filter(pk=page.assignment_id).update(skipped_at=timezone.now())


def raise_flag(page: ItemPage, comment: str) -> Flag:
    comment = comment.strip()
    if not comment:
        raise Refused.of("required/comment")
    if unstorable(comment):
        raise Refused.of("unstorable/comment")
    if limits.comment_problems(comment):
        raise Refused.of("too_long/comment", limit=limits.MAX_COMMENT)
    return Flag.objects.create(item_id=page.item_id, raised_by_id=page.annotator_id, comment=comment)
