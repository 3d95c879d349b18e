"""Routing, the annotator's side (writes): the next item of a routed dataset, its reservation
(renewed, released by Skip, expired), and the count of a submitted answer.

An item's load is its submitted answers plus its reservations (RoutedItem's counters). The
next item is, among the sample items the annotator has not answered, one with load below k
and the largest load, ties in the annotator's own order (RoutingOrder); skipped items after
every other; the pilot's items first, to every annotator and exempt from k; an annotator at
their quota only gets back the items they hold positions of. Every Nth position served is a
control item (annotation.datasets.assigning's control positions, the dataset's control seed).

Race-free in the database: the item is chosen with ``FOR UPDATE OF its counter SKIP LOCKED``
and its counter raised in the same transaction, so two annotators never take the last place
of one item, and a counter changed meanwhile is checked again by PostgreSQL before the lock
is granted. An annotator's own choices run one at a time (their RoutedAnnotator row is locked).
Only answers that count (annotation.answers.counted) add to an item's load: a study's preview
or test entries and the participants its reconciliation left out reserve as anyone does, and a
reconciliation that changes who counts recounts the items they answered
(annotation.studies.services.reconcile). A reservation held past its time counts as load until it is released (at the
next choice in the dataset, a bounded batch); an answer that comes after that is stored and
counted, and counted again as late. The choice reads a few small sets, none growing with the dataset
(``_stage_sql``): the pilot, the items in progress (given to someone, short of k), the first
untouched item from the annotator's cursor in their order, their own positions and skips.
On PostgreSQL the usual choice (no pilot, room under the quota) is made and reserved in one
statement (``_reserved_choice_sql``), and when the rules need nothing more, with the lock of the
annotator's row and outside a transaction (``_served_in_one_statement``); the stages run one by
one when it leaves the choice to them.
"""

import re
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import IntegrityError, connection, transaction
from django.db.models import Case, Count, F, Max, OuterRef, Subquery, When
from django.db.models.functions import Coalesce, Least
from django.db.models.lookups import GreaterThanOrEqual
from django.utils import timezone

from annotation.annotate.queue import ItemPage
from annotation.annotate.signals import routed_queue_finished
from annotation.answers.counted import counted_answers, counted_people, uncounted_person_sql
from annotation.core import sql_rows
from annotation.datasets.assigning import control_items_left, extend_order, is_control_position
from annotation.models import (
    Annotation,
    Assignment,
    Dataset,
    Item,
    RoutedAnnotator,
    RoutedItem,
    RoutingOrder,
)

ITEM = "item"  # an item is reserved for the annotator: its position
WAITING = "waiting"  # nothing available now: every item left is at k or reserved by others
DONE = "done"  # nothing remains for the annotator

# Expired reservations released at one choice; more wait for the next.
RELEASED_AT_ONCE = 200


# Datasets whose settings (a pilot, control items) send every choice the transaction's way, as
# last seen by this process: the one statement is not tried for them, which would read those
# settings only to leave the choice to that way. A hint: the statement checks the settings
# itself, so a stale entry costs a round trip or the shortcut, never a wrong item.
_CHOSEN_STEP_BY_STEP: set[int] = set()


@dataclass(frozen=True)
class Next:
    state: str  # ITEM, WAITING or DONE
    position: int | None = None
    reserved_until: datetime | None = None


# Cursor value of an annotator whose order holds no untouched item any more.
EXHAUSTED = 2**31 - 1


@cache
def _stage_sql(stage: str, postgresql: bool) -> str:
    """SQL of one stage of the choice (each reads a set whose size does not grow with the
    dataset), returning (item id, the annotator's assignment of it or NULL, load, rank, the assignment's
    position or NULL):

    - ``pilot``: the pilot's items (m of them), in the pilot's order, skipped ones last;
    - ``in_progress``: the items already given to someone and not yet at k answers (a partial
      index holds only them: about as many as annotators at work), largest load first;
    - ``untouched``: the first item never given to anyone in the annotator's order, from their
      cursor (which passes over the items others took, each once);
    - ``own``: the annotator's own items (positions they hold: at their quota), skipped last;
    - ``skipped``: the items the annotator skipped, oldest skip first.

    ``postgresql``: with the row lock (FOR UPDATE SKIP LOCKED) and the planner's fences (OFFSET 0,
    which SQLite, the demo's database, refuses without a LIMIT)."""
    fence = "OFFSET 0" if postgresql else ""
    window_ids = f"= ANY(ARRAY({_window_sql('o.item_id')}))" if postgresql else f"IN ({_window_sql('o.item_id')})"
    mine = f"""LEFT JOIN {sql_rows.table(Assignment)} h ON h.item_id = r.item_id AND h.annotator_id = %(annotator)s"""
    item = f"JOIN {sql_rows.table(Item)} i ON i.id = r.item_id AND i.withdrawn_at IS NULL"
    # LEFT JOIN: an annotator's order is stored a chunk at a time (assigning.extend_order), and
    # an item someone else took may lie beyond it: after every stored rank, in a seeded order
    # of the annotator's own.
    order = f"LEFT JOIN {sql_rows.table(RoutingOrder)} o ON o.annotator_id = %(annotator)s AND o.item_id = r.item_id"
    # A multiplier of the annotator's own modulo a prime: the same SQL on SQLite (the demo).
    # (o.rank IS NULL first: SQLite sorts NULL before every number.)
    beyond_stored = "o.rank IS NULL, o.rank, (r.item_id + 1) * (2 * %(annotator)s + 1) %% 1000003"
    unanswered = f"""NOT EXISTS (SELECT 1 FROM {sql_rows.table(Annotation)} s
        WHERE s.item_id = r.item_id AND s.annotator_id = %(annotator)s AND s.status = 'submitted')"""
    free = "(h.id IS NULL OR h.reserved_until IS NULL) AND (%(room)s OR h.id IS NOT NULL)"
    below_k = "r.submitted + r.reserved < %(k)s"
    items = sql_rows.table(RoutedItem)
    query = {
        "pilot": f"""FROM {items} r {order} {item} {mine}
            WHERE r.dataset_id = %(dataset)s AND r.pilot_rank IS NOT NULL AND {unanswered} AND {free}
            ORDER BY o.skipped_at IS NOT NULL, o.skipped_at, r.pilot_rank""",
        # The items in progress found first in their partial index, those below k only (OFFSET
        # 0: the planner keeps the subquery apart; it reads no lock, so that the lock takes only
        # the row chosen, and its counters are read again under the lock): the generic plan of
        # the plain join read every item of the dataset, and with the load tested after the
        # joins, each item at k (most of them, once many annotators are at work) cost five
        # index lookups. The outer dataset test bounds the join's rows to the dataset: without
        # it PostgreSQL hashed the partial index of every routed dataset.
        "in_progress": f"""FROM (SELECT item_id FROM {items} WHERE dataset_id = %(dataset)s AND touched AND NOT complete
                  AND pilot_rank IS NULL AND submitted + reserved < %(k)s {fence}) p
            JOIN {items} r ON r.item_id = p.item_id {order} {item} {mine}
            WHERE r.dataset_id = %(dataset)s AND r.touched AND NOT r.complete AND r.pilot_rank IS NULL AND {below_k}
              AND o.skipped_at IS NULL AND {unanswered} AND {free}
            ORDER BY r.submitted + r.reserved DESC, {beyond_stored}""",
        # A window of the order from the cursor, read in the index's order: with the whole
        # rest of the order to join, PostgreSQL sorted all of it for every choice.
        # The window's counters looked up by their keys (= ANY of the window's ids): with the
        # join alone, the generic plan for an order stored a chunk at a time hashed every routed
        # item of the dataset.
        "untouched": f"""FROM ({_window_sql("o.*")}) o
            JOIN {items} r ON r.item_id = o.item_id AND r.item_id {window_ids} {item} {mine}
            WHERE NOT r.touched AND r.pilot_rank IS NULL
            ORDER BY o.rank""",
        # Their positions read first (OFFSET 0: the planner keeps the subquery apart): the
        # statement is prepared, and the generic plan PostgreSQL settled on for the plain join
        # read every routed item of the database.
        "own": f"""FROM (SELECT * FROM {sql_rows.table(Assignment)}
                  WHERE dataset_id = %(dataset)s AND annotator_id = %(annotator)s AND reserved_until IS NULL
                  {fence}) h
            JOIN {items} r ON r.item_id = h.item_id {order} {item}
            WHERE r.pilot_rank IS NULL AND {below_k} AND {unanswered}
            ORDER BY o.skipped_at IS NOT NULL, o.skipped_at, r.submitted + r.reserved DESC, {beyond_stored}""",
        "skipped": f"""FROM {sql_rows.table(RoutingOrder)} o
            JOIN {items} r ON r.item_id = o.item_id {item} {mine}
            WHERE o.dataset_id = %(dataset)s AND o.annotator_id = %(annotator)s AND o.skipped_at IS NOT NULL
              AND r.pilot_rank IS NULL AND {below_k} AND {unanswered} AND {free}
            ORDER BY o.skipped_at, r.submitted + r.reserved DESC, o.rank""",
    }[stage]
    lock = " FOR UPDATE OF r SKIP LOCKED" if postgresql else ""
    return f"SELECT r.item_id, h.id, r.submitted + r.reserved, o.rank, h.position {query} LIMIT 1{lock}"


# Rows of the annotator's order the untouched stage reads at once from their cursor.
UNTOUCHED_WINDOW = 64


def _window_sql(columns: str, offset: int = 0) -> str:
    """The annotator's order from their cursor, their skipped items left out: its first
    UNTOUCHED_WINDOW rows (``offset``: from that row of the window on)."""
    return f"""SELECT {columns} FROM {sql_rows.table(RoutingOrder)} o
        WHERE o.dataset_id = %(dataset)s AND o.annotator_id = %(annotator)s AND o.rank >= %(cursor)s
          AND o.skipped_at IS NULL
        ORDER BY o.rank LIMIT {UNTOUCHED_WINDOW - offset} OFFSET {offset}"""


@cache
def _window_end_sql() -> str:
    return _window_sql("o.rank", offset=UNTOUCHED_WINDOW - 1)


def _first_untouched(member: RoutedAnnotator, params: dict) -> tuple[tuple | None, int]:
    """The untouched stage's row (None: nothing untouched is free) and the cursor after it:
    its rank, else EXHAUSTED. A window without a free untouched item moves the cursor past it
    (its items were taken by others: each is passed over once) and the next window is read;
    one that reaches the end of the stored order has the next chunk of it stored first
    (``member`` is locked)."""
    cursor = params["cursor"]
    while cursor < EXHAUSTED:
        row = _first("untouched", {**params, "cursor": cursor})
        if row is not None:
            return row, row[3]
        window_end = _one_row(_window_end_sql(), {**params, "cursor": cursor})
        if window_end is not None:
            cursor = window_end[0] + 1
        elif member.order_complete or not extend_order(member):  # the window was the rest of the order
            break
    return None, EXHAUSTED


@cache
def _remains_sql() -> str:
    """SQL: whether anything remains for the annotator (else the end page), bounded as the
    stages are: a pilot item they have not answered, an item in progress they have not
    answered, an untouched item past their cursor, an item they hold a position of below k,
    or, while the rest after the pilot is closed, any item short of k."""
    items, answers = sql_rows.table(RoutedItem), sql_rows.table(Annotation)
    unanswered = f"""NOT EXISTS (SELECT 1 FROM {answers} s
        WHERE s.item_id = r.item_id AND s.annotator_id = %(annotator)s AND s.status = 'submitted')"""
    return f"""SELECT
        EXISTS (SELECT 1 FROM {items} r WHERE r.dataset_id = %(dataset)s AND r.pilot_rank IS NOT NULL AND {unanswered}
                AND (%(room)s OR EXISTS (SELECT 1 FROM {sql_rows.table(Assignment)} h
                                         WHERE h.item_id = r.item_id AND h.annotator_id = %(annotator)s)))
        OR (NOT %(open)s AND EXISTS (SELECT 1 FROM {items} r WHERE r.dataset_id = %(dataset)s AND NOT r.complete
                                     AND r.pilot_rank IS NULL))
        OR (%(open)s AND %(room)s AND (%(cursor)s < {EXHAUSTED} OR EXISTS (
            SELECT 1 FROM {items} r WHERE r.dataset_id = %(dataset)s AND r.touched AND NOT r.complete
              AND r.pilot_rank IS NULL AND r.submitted < %(k)s AND {unanswered})))
        OR (%(open)s AND EXISTS (SELECT 1 FROM {sql_rows.table(Assignment)} h JOIN {items} r ON r.item_id = h.item_id
            WHERE h.dataset_id = %(dataset)s AND h.annotator_id = %(annotator)s AND r.submitted < %(k)s
              AND {unanswered}))"""


def release_expired(dataset_id: int, now: datetime) -> int:
    """Release the dataset's reservations that expired by ``now`` (a bounded batch), in item
    order so that two releases never wait on each other; the rows another transaction holds
    are left to it. Returns how many were released."""
    with transaction.atomic(savepoint=False):
        lapsed = list(
            Assignment.objects.select_for_update(skip_locked=True)
            .filter(dataset_id=dataset_id, reserved_until__lt=now)
            .order_by("item_id")
            .values_list("pk", "item_id")[:RELEASED_AT_ONCE]
        )
        if not lapsed:
            return 0
        Assignment.objects.filter(pk__in=[pk for pk, _ in lapsed]).update(reserved_until=None, reservation_lapsed=True)
        for item_id in sorted({item_id for _, item_id in lapsed}):
            held = sum(1 for _, lapsed_item in lapsed if lapsed_item == item_id)
            RoutedItem.objects.filter(item_id=item_id).update(reserved=F("reserved") - held)
    return len(lapsed)


def next_item(annotator: AbstractBaseUser, dataset_id: int, now: datetime | None = None) -> Next | None:
    """Reserve the annotator's next item of the routed dataset (None: they are not one of its
    annotators). The item they hold a reservation of comes first (renewed)."""
    now = now or timezone.now()
    if chosen_in_one_statement(dataset_id):
        served = _served_in_one_statement(annotator, dataset_id, now)
        if served is not None:
            return served
    with transaction.atomic():
        member = _locked_member(annotator, dataset_id, now)
        if member is None:
            return None
        if member.lapsed_reservations:
            # In the choice's transaction: one commit less per choice (a release never waits
            # on a choice: a choice locks its one counter last).
            release_expired(dataset_id, now)
        dataset = member.dataset
        if dataset.pilot_size or dataset.control_rate:
            _CHOSEN_STEP_BY_STEP.add(dataset.pk)
        else:
            _CHOSEN_STEP_BY_STEP.discard(dataset.pk)
        if member.deadline is not None and now >= member.deadline:
            # Past their deadline (a study participant's): nothing more; a reservation they
            # held lapsed with it and is released as any other.
            return _done(member)
        until = reservation_end(now, dataset.reservation_minutes, member.deadline)
        if member.held_position is not None:
            Assignment.objects.filter(dataset=dataset, annotator=annotator, position=member.held_position).update(
                reserved_until=until)
            return Next(ITEM, member.held_position, until)
        quota = member.quota or dataset.quota
        room = quota is None or member.served < quota
        username = member.annotator.get_username()
        if room and is_control_position(dataset, username, member.served + 1):
            controls = control_items_left(dataset, member.annotator)
            if controls:
                return Next(ITEM, _new_position(member, controls[0], until), until)
        params = {"dataset": dataset.pk, "annotator": annotator.pk, "k": dataset.answers_per_item, "room": room,
                  "open": dataset.pilot_open or not dataset.pilot_size, "cursor": member.cursor,
                  "complete": member.order_complete}
        if room and not dataset.pilot_size and connection.vendor == "postgresql":
            reserved = _one_row(_reserved_choice_sql(whole=False),
                                {**params, "member": member.pk, "now": now, "until": until})
            if reserved is not None:
                return Next(ITEM, *reserved)
        cursor_before = member.cursor
        chosen = _choose(member, params, pilot=bool(dataset.pilot_size))
        if chosen is None:
            _save_cursor(member, cursor_before)
            with connection.cursor() as cursor:
                cursor.execute(_remains_sql(), {**params, "cursor": member.cursor})
                return Next(WAITING) if cursor.fetchone()[0] else _done(member)
        item_id, assignment_id, position = chosen
        if assignment_id is None and connection.vendor == "postgresql":
            return Next(ITEM, _reserved_position(member, item_id, now, until), until)
        RoutedItem.objects.filter(item_id=item_id).update(reserved=F("reserved") + 1, touched=True)
        if assignment_id is not None:
            _save_cursor(member, cursor_before)
            Assignment.objects.filter(pk=assignment_id).update(reserved_until=until, reservation_lapsed=False)
            return Next(ITEM, position, until)
        return Next(ITEM, _new_position(member, item_id, until), until)


def _locked_member(annotator: AbstractBaseUser, dataset_id: int, now: datetime) -> RoutedAnnotator | None:
    """The annotator's row of the routed dataset, locked, with its dataset, the position they
    hold a reservation of (``held_position``) and whether any reservation of the dataset has
    lapsed by ``now`` (``lapsed_reservations``); None: they are not one of its annotators.
    One hand-written query: save & next's cost is its round trips and the ORM's building of
    this one took longer than the database's answer."""
    with connection.cursor() as cursor:
        cursor.execute(_member_sql(connection.features.has_select_for_update_of),
                       {"dataset": dataset_id, "annotator": annotator.pk, "now": now})
        row = cursor.fetchone()
    if row is None:
        return None
    members = sql_rows.column_count(RoutedAnnotator)
    datasets = members + sql_rows.column_count(Dataset)
    member = sql_rows.instance(RoutedAnnotator, row[:members])
    member.dataset = sql_rows.instance(Dataset, row[members:datasets])
    member.annotator = annotator
    member.held_position, member.lapsed_reservations = row[datasets], bool(row[datasets + 1])
    return member


@cache
def _member_sql(lock: bool) -> str:
    # The earliest reservation's end, not EXISTS (... reserved_until < now): the statement is
    # prepared, and the generic plan PostgreSQL settles on for that EXISTS scans the whole
    # table of assignments; min() reads the first entry of the (dataset, reserved_until) index.
    assignments = sql_rows.table(Assignment)
    return f"""SELECT {sql_rows.columns(RoutedAnnotator, "m")}, {sql_rows.columns(Dataset, "d")},
            (SELECT h.position FROM {assignments} h
             WHERE h.dataset_id = m.dataset_id AND h.annotator_id = m.annotator_id AND h.reserved_until IS NOT NULL
             ORDER BY h.position LIMIT 1),
            COALESCE((SELECT min(x.reserved_until) FROM {assignments} x WHERE x.dataset_id = m.dataset_id) < %(now)s,
                     FALSE)
        FROM {sql_rows.table(RoutedAnnotator)} m JOIN {sql_rows.table(Dataset)} d ON d.id = m.dataset_id AND d.routing
        WHERE m.dataset_id = %(dataset)s AND m.annotator_id = %(annotator)s{" FOR UPDATE OF m" if lock else ""}"""


def reservation_end(now: datetime, minutes: int, deadline: datetime | None) -> datetime:
    """When a reservation made or renewed at ``now`` expires: after the dataset's minutes, and
    never after the annotator's deadline (one timeout: a participant's ends with their time)."""
    until = now + timedelta(minutes=minutes)
    return until if deadline is None else min(until, deadline)


def _done(member: RoutedAnnotator) -> Next:
    """Nothing remains for the annotator: said to whoever listens (a panel study moves its
    participant on), in the choice's transaction."""
    routed_queue_finished.send(RoutedAnnotator, annotator=member.annotator, dataset=member.dataset)
    return Next(DONE)


def _save_cursor(member: RoutedAnnotator, before: int) -> None:
    if member.cursor != before:
        member.save(update_fields=["cursor"])


def _first(stage: str, params: dict) -> tuple | None:
    return _one_row(_stage_sql(stage, connection.vendor == "postgresql"), params)


def _one_row(sql: str, params: dict) -> tuple | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _choose(member: RoutedAnnotator, params: dict, *, pilot: bool) -> tuple[int, int | None, int | None] | None:
    """(item id, the annotator's assignment of it and its position, or None twice) of their
    next item, its counter locked; None: nothing available now. The annotator's cursor is
    moved in ``member``, not saved. The stages in the order the rules give: the pilot (when the
    dataset has one);
    then, with room under the quota, the item in progress of the largest load (an untouched
    item has load 0: the one earlier in the annotator's order wins a tie), else only the
    items they hold positions of; skipped items last."""
    if pilot:
        chosen = _first("pilot", params)
        if chosen is not None:
            return _chosen(chosen)
    if not params["open"]:
        return None
    if not params["room"]:
        chosen = _first("own", params)
        return _chosen(chosen) if chosen is not None else None
    best = _first("in_progress", params)
    if best is None or best[2] == 0:
        untouched, member.cursor = _first_untouched(member, params)
        # An item in progress without a rank lies beyond the stored order: after the untouched.
        if untouched is not None and (best is None or best[3] is None or untouched[3] < best[3]):
            best = untouched
    if best is None:
        best = _first("skipped", params)
    return _chosen(best) if best is not None else None


def chosen_in_one_statement(dataset_id: int) -> bool:
    """Whether the dataset's usual choice is tried in one statement (PostgreSQL; no pilot or
    control items, as last seen)."""
    return connection.vendor == "postgresql" and dataset_id not in _CHOSEN_STEP_BY_STEP


def _served_in_one_statement(annotator: AbstractBaseUser, dataset_id: int, now: datetime) -> Next | None:
    """The usual choice in one statement, the annotator's row locked in it, reserved and
    committed with it (save & next's cost is its round trips and commits). None, having written
    nothing: the rules need more than it reads (a reservation lapsed in the dataset, one the
    annotator holds, their deadline past, their quota reached, a pilot, control items), the
    stages must decide, or the choice raced another request of the same annotator's: having
    waited for their row, the statement still sees the data from before the other's choice,
    and its reservation is refused by the schema (one reservation per annotator and dataset;
    one assignment per item and annotator); the transaction's path then finds theirs."""
    params = {"dataset": dataset_id, "annotator": annotator.pk, "now": now}
    try:
        # A savepoint only inside a transaction (a test's): outside, the statement is one.
        with transaction.atomic() if connection.in_atomic_block else nullcontext():
            reserved = _one_row(_reserved_choice_sql(whole=True), params)
    except IntegrityError:
        return None
    return None if reserved is None else Next(ITEM, *reserved)


@cache
def _reserved_choice_sql(whole: bool) -> str:
    """The usual choice, made and reserved in one PostgreSQL statement, returning the position
    and the reservation's end (as _reserved_choice_ctes: ``reserved_next``)."""
    return f"WITH {_reserved_choice_ctes(whole)} SELECT * FROM reserved_next"


def reserved_after_count_sql() -> str:
    """The usual choice as CTEs for a save's statement to end with, after counted_after_sql's:
    the annotator's next item reserved in the statement that stores and counts their answer
    (one round trip and one commit for save & next), its position and reservation's end in
    the CTE ``reserved_next`` (no row: the choice is left to next_item). It chooses only when
    the answer was stored and counted and the item submitted was reserved to the annotator
    until now or later: then, in the statement's snapshot, that item is still theirs and held
    (not chosen again), and their reservation of it is the one the statement releases.
    Positional parameters (%s, as the save's), their values reserved_after_count_parameters'."""
    return _positional(_reserved_choice_ctes(whole=True, after_count=True))[0]


def reserved_after_count_parameters(page: ItemPage, now: datetime) -> list:
    """The values of reserved_after_count_sql's parameters, in their order in its SQL."""
    values = {"dataset": page.dataset_id, "annotator": page.annotator_id, "now": now}
    return [values[name] for name in _positional(_reserved_choice_ctes(whole=True, after_count=True))[1]]


@cache
def _reserved_choice_ctes(whole: bool, after_count: bool = False) -> str:
    """The usual choice, made and reserved, as CTEs ending in ``reserved_next``: the position
    and the reservation's end: the item in progress of the largest load above 0, else the
    first free untouched item of the annotator's window or the item in progress of load 0,
    whichever comes first in their order. No row, having written nothing: the stages decide
    (no item in progress has load, the window holds no free untouched item and does not reach
    the end of the order or that end is not stored yet, or nothing of either kind is free).
    Its parameters are next_item's (``params``, the member, now, until); ``whole``: only the
    dataset, the annotator and now, the statement locking the annotator's row and reading
    the settings itself (the ``gate``), and choosing only when the rules need nothing more;
    ``after_count``: the gate after counted_after_sql's CTEs (reserved_after_count_sql)."""
    # The untouched stage and the window's end are gated on the items in progress (one-time
    # filters: not read at all when an item in progress has load), as _choose runs them; each
    # stage locks its row as it does there. The cursor moves as _first_untouched moves it: to
    # the untouched row found, or past the end of an order without one.
    stage_columns = "(item_id, held, load, rank, position)"
    assignments, items = sql_rows.table(Assignment), sql_rows.table(RoutedItem)
    gate, member, until = "", "%(member)s", "%(until)s"
    from_gate = {}
    if whole:
        gate, member, until = (f"gate AS ({_gate_sql(after_count)}),", "(SELECT id FROM gate)",
                               "(SELECT until FROM gate)")
        from_gate = {"k": "(SELECT k FROM gate)", "cursor": "(SELECT cursor FROM gate)", "room": "TRUE",
                     "complete": "(SELECT order_complete FROM gate)"}

    def settled(sql: str) -> str:
        return _SETTING.sub(lambda found: from_gate.get(found.group(1), found.group(0)), sql)

    return f"""{gate}
        progress{stage_columns} AS ({settled(_stage_sql("in_progress", True))}),
        untouched{stage_columns} AS (
            SELECT * FROM ({settled(_stage_sql("untouched", True))}) first_untouched
            WHERE NOT EXISTS (SELECT 1 FROM progress WHERE load > 0)),
        order_ends AS (
            SELECT {settled("%(complete)s")} AND NOT EXISTS (SELECT 1 FROM progress WHERE load > 0)
                   AND NOT EXISTS (SELECT 1 FROM untouched) AND NOT EXISTS ({settled(_window_end_sql())}) AS in_window),
        chosen AS (
            SELECT * FROM (SELECT * FROM progress UNION ALL SELECT * FROM untouched) candidate
            WHERE load > 0 OR EXISTS (SELECT 1 FROM untouched) OR (SELECT in_window FROM order_ends)
            ORDER BY load DESC, rank LIMIT 1),
        reserving AS (
            UPDATE {items} r SET reserved = r.reserved + 1, touched = TRUE FROM chosen WHERE r.item_id = chosen.item_id),
        member AS (
            UPDATE {sql_rows.table(RoutedAnnotator)} m
            SET served = m.served + (chosen.held IS NULL)::int,
                cursor = COALESCE((SELECT rank FROM untouched),
                                  CASE WHEN (SELECT in_window FROM order_ends) THEN {EXHAUSTED} END, m.cursor)
            FROM chosen WHERE m.id = {member}
            RETURNING m.served),
        renewed AS (
            UPDATE {assignments} a SET reserved_until = {until}, reservation_lapsed = FALSE
            FROM chosen WHERE a.id = chosen.held
            RETURNING a.position, a.reserved_until),
        inserted AS (
            INSERT INTO {assignments}
                (dataset_id, item_id, annotator_id, position, created_at, reserved_until, reservation_lapsed)
            SELECT %(dataset)s, chosen.item_id, %(annotator)s, member.served, %(now)s, {until}, FALSE
            FROM chosen, member WHERE chosen.held IS NULL
            RETURNING position, reserved_until),
        reserved_next AS (SELECT * FROM inserted UNION ALL SELECT * FROM renewed)"""


# The stages' parameters that the whole statement reads from its gate instead.
_SETTING = re.compile(r"%\((k|cursor|room|complete)\)s")


def _gate_sql(after_count: bool) -> str:
    """The annotator's row, locked, with what the whole statement's choice needs (their
    cursor, k, the reservation's end as reservation_end computes it), when the rules need
    nothing more than it reads: no reservation lapsed in the dataset (as _member_sql finds one)
    and none held by the annotator, their deadline not past, room under their quota
    (``member.quota or dataset.quota``), no pilot and no control items. ``after_count``: after
    counted_after_sql's CTEs, once they counted an answer to an item reserved to the annotator
    and not lapsed; that reservation, released by them, not counted as held. (Reading them
    here also runs them first: the answer's counter locked before the choice's, as when the
    two are statements of one transaction, and the reservation released before the new one
    is inserted, which the schema allows one of per annotator and dataset.)"""
    assignments = sql_rows.table(Assignment)
    counted, released = "", ""
    if after_count:
        counted = ("AND EXISTS (SELECT 1 FROM counted) AND EXISTS (SELECT 1 FROM released)"
                   " AND NOT (SELECT late FROM held)")
        released = "AND h.id <> (SELECT id FROM held)"
    return f"""SELECT m.id, m.cursor, m.order_complete, d.answers_per_item AS k,
            LEAST(%(now)s::timestamptz + make_interval(mins => d.reservation_minutes), m.deadline) AS until
        FROM {sql_rows.table(RoutedAnnotator)} m JOIN {sql_rows.table(Dataset)} d ON d.id = m.dataset_id AND d.routing
        WHERE m.dataset_id = %(dataset)s AND m.annotator_id = %(annotator)s
          AND (m.deadline IS NULL OR m.deadline > %(now)s)
          AND (COALESCE(NULLIF(m.quota, 0), d.quota) IS NULL OR m.served < COALESCE(NULLIF(m.quota, 0), d.quota))
          AND d.pilot_size = 0 AND d.control_rate = 0 {counted}
          AND NOT EXISTS (SELECT 1 FROM {assignments} h WHERE h.dataset_id = m.dataset_id
                          AND h.annotator_id = m.annotator_id AND h.reserved_until IS NOT NULL {released})
          AND COALESCE((SELECT min(x.reserved_until) FROM {assignments} x WHERE x.dataset_id = m.dataset_id) >= %(now)s,
                       TRUE)
        FOR UPDATE OF m"""


def _chosen(row: tuple) -> tuple[int, int | None, int | None]:
    item_id, assignment_id, _load, _rank, position = row
    return item_id, assignment_id, position


def _reserved_position(member: RoutedAnnotator, item_id: int, now: datetime, until: datetime) -> int:
    """A new position for the routed item, its counter raised and the annotator's cursor saved,
    in one PostgreSQL statement instead of three (round trips are save & next's cost)."""
    with connection.cursor() as cursor:
        cursor.execute(_reserved_position_sql(), {
            "item": item_id, "member": member.pk, "cursor": member.cursor, "dataset": member.dataset_id,
            "annotator": member.annotator_id, "now": now, "until": until,
        })
        member.served = cursor.fetchone()[0]
    return member.served


@cache
def _reserved_position_sql() -> str:
    return f"""WITH counted AS (
            UPDATE {sql_rows.table(RoutedItem)} SET reserved = reserved + 1, touched = TRUE WHERE item_id = %(item)s),
        member AS (
            UPDATE {sql_rows.table(RoutedAnnotator)} SET served = served + 1, cursor = %(cursor)s WHERE id = %(member)s
            RETURNING served)
        INSERT INTO {sql_rows.table(Assignment)}
            (dataset_id, item_id, annotator_id, position, created_at, reserved_until, reservation_lapsed)
        SELECT %(dataset)s, %(item)s, %(annotator)s, served, %(now)s, %(until)s, FALSE FROM member
        RETURNING position"""


def _new_position(member: RoutedAnnotator, item_id: int, until: datetime) -> int:
    """A new position for the item (the cursor the choice moved saved with it)."""
    member.served += 1
    member.save(update_fields=["served", "cursor"])
    Assignment.objects.create(dataset_id=member.dataset_id, item_id=item_id, annotator_id=member.annotator_id,
                              position=member.served, reserved_until=until)
    return member.served


def renew(page: ItemPage, now: datetime | None = None) -> datetime | None:
    """Extend the annotator's open reservation of the page's item while they use the page
    (None: they hold none, e.g. it expired and was released; their answer is still taken)."""
    now = now or timezone.now()
    deadline = (RoutedAnnotator.objects.filter(dataset_id=page.dataset_id, annotator_id=page.annotator_id)
                .values_list("deadline", flat=True).first())
    until = reservation_end(now, page.reservation_minutes, deadline)
    renewed = Assignment.objects.filter(pk=page.assignment_id, reserved_until__isnull=False).update(reserved_until=until)
    return until if renewed else None


def skip(page: ItemPage, now: datetime | None = None) -> None:
    """Release the reservation of the page's item and put it after every other item of the
    annotator's order (it keeps its position)."""
    now = now or timezone.now()
    with transaction.atomic():
        # The annotator's row first, as a choice locks it before their assignments: a skipped
        # item beyond their stored order takes the rank after it, and two writers never one.
        RoutedAnnotator.objects.select_for_update().filter(dataset_id=page.dataset_id,
                                                           annotator_id=page.annotator_id).first()
        held = Assignment.objects.select_for_update().filter(pk=page.assignment_id, reserved_until__isnull=False)
        if held.exists():
            held.update(reserved_until=None, skipped_at=now)
            RoutedItem.objects.filter(item_id=page.item_id).update(reserved=F("reserved") - 1)
        else:
            Assignment.objects.filter(pk=page.assignment_id).update(skipped_at=now)
        order = RoutingOrder.objects.filter(dataset_id=page.dataset_id, annotator_id=page.annotator_id)
        if not order.filter(item_id=page.item_id).update(skipped_at=now):
            # An item another annotator took first, beyond the order stored for this one.
            RoutingOrder.objects.create(dataset_id=page.dataset_id, annotator_id=page.annotator_id,
                                        item_id=page.item_id, skipped_at=now,
                                        rank=(order.aggregate(last=Max("rank"))["last"] or 0) + 1)


def count_submission(page: ItemPage, now: datetime | None = None) -> None:
    """Count the first submitted answer to the page's item (in the save's transaction): its
    reservation becomes an answer; an answer after the reservation expired counts as late. An
    answer that does not count (a study's test entry's, a left-out participant's) only gives
    the reservation back."""
    now = now or timezone.now()
    if connection.vendor == "postgresql":
        # One round trip instead of three (lock, count, release): save & next's cost is its
        # round trips, not its queries.
        with connection.cursor() as cursor:
            cursor.execute(_counted_sql(), {"assignment": page.assignment_id, "item": page.item_id, "now": now,
                                            "k": page.answers_per_item})
        return
    assignment = Assignment.objects.select_for_update().get(pk=page.assignment_id)
    reserved = assignment.reserved_until is not None
    counts = counted_people(User.objects.filter(pk=assignment.annotator_id), field="pk").exists()
    late = counts and (assignment.reservation_lapsed or (reserved and assignment.reserved_until < now))
    counters = {"reserved": F("reserved") - int(reserved)}
    if counts:
        # At k answers an item leaves the items in progress for good (answers are never taken back).
        counters.update(submitted=F("submitted") + 1, late=F("late") + int(late),
                        complete=Case(When(submitted__gte=page.answers_per_item - 1, then=True), default=F("complete")))
    RoutedItem.objects.filter(item_id=page.item_id).update(**counters)
    if reserved:
        Assignment.objects.filter(pk=assignment.pk).update(reserved_until=None)


def recount(annotator_ids: list[int]) -> int:
    """Count again, from the answers that count, the load counters of the routed items these
    accounts submitted answers to (a reconciliation changed whether theirs count): an item's
    answers as many as count now, its late answers no more than that, complete when they reach
    k (an item a left-out participant completed goes back to others). In the caller's
    transaction; an answer being saved meanwhile waits for the counter's lock and counts after
    it. How many items were counted again."""
    answered = Annotation.objects.filter(annotator_id__in=annotator_ids, status=Annotation.Status.SUBMITTED)
    counted = Coalesce(Subquery(
        counted_answers(Annotation.objects.filter(item_id=OuterRef("item_id"))).order_by()
        .values("item_id").annotate(n=Count("pk")).values("n")
    ), 0)
    k = Subquery(Dataset.objects.filter(pk=OuterRef("dataset_id")).values("answers_per_item"))
    return RoutedItem.objects.filter(item_id__in=answered.values("item_id")).update(
        submitted=counted, late=Least(F("late"), counted),
        complete=Case(When(GreaterThanOrEqual(counted, k), then=True), default=False),
    )


@cache
def _counted_sql() -> str:
    """count_submission in one PostgreSQL statement: the assignment locked first (as
    release_expired locks it), then its item's counters and its reservation written."""
    return f"WITH {_counting_sql('')} UPDATE {_counter_update_sql()}"


def _counting_sql(condition: str) -> str:
    """The CTEs of the count (the assignment locked, its reservation released) that end in
    ``held``, which the counter's update reads; ``condition`` (SQL) limits the count."""
    assignments = sql_rows.table(Assignment)
    return f"""held AS (
            SELECT id, reserved_until IS NOT NULL AS reserved,
                   reservation_lapsed OR COALESCE(reserved_until < %(now)s, FALSE) AS late,
                   NOT {uncounted_person_sql("annotator_id")} AS counts
            FROM {assignments} WHERE id = %(assignment)s {condition} FOR UPDATE),
        released AS (UPDATE {assignments} a SET reserved_until = NULL FROM held WHERE a.id = held.id AND held.reserved
                     RETURNING a.id)"""


def _counter_update_sql() -> str:
    return f"""{sql_rows.table(RoutedItem)} r
        SET submitted = r.submitted + held.counts::int, reserved = r.reserved - held.reserved::int,
            late = r.late + (held.late AND held.counts)::int,
            complete = r.complete OR (held.counts AND r.submitted >= %(k)s - 1)
        FROM held WHERE r.item_id = %(item)s"""


def counted_after_sql(saved: str) -> str:
    """CTEs that count the page's first submitted answer (as count_submission does) when the
    CTE named ``saved`` stored it (returned a row), for a save's statement to end with. Its
    parameters are positional (%s, as the save's), their values ``counted_parameters``."""
    return _positional(_counted_after_named_sql(saved))[0]


def counted_parameters(saved: str, page: ItemPage, now: datetime) -> list:
    """The values of counted_after_sql's parameters, in their order in its SQL."""
    values = {"assignment": page.assignment_id, "item": page.item_id, "now": now, "k": page.answers_per_item}
    return [values[name] for name in _positional(_counted_after_named_sql(saved))[1]]


@cache
def _positional(named_sql: str) -> tuple[str, tuple[str, ...]]:
    """SQL with named parameters (%(name)s) as SQL with positional ones (%s), and the names in
    their order there."""
    return _NAMED_PARAMETER.sub("%s", named_sql), tuple(_NAMED_PARAMETER.findall(named_sql))


_NAMED_PARAMETER = re.compile(r"%\((\w+)\)s")


@cache
def _counted_after_named_sql(saved: str) -> str:
    return (f"{_counting_sql(f'AND EXISTS (SELECT 1 FROM {saved})')},"
            f" counted AS (UPDATE {_counter_update_sql()} RETURNING r.item_id)")
