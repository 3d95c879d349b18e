"""Routing (annotation.annotate.routing): the next item is the unanswered sample item with the
largest load below k, reservations count as load, no item ever goes above k, and an answer
after an expired reservation is kept."""

import json
import re
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.db.models import Count, Max, Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from psycopg.sql import Literal

from annotation.annotate import queue, routing
from annotation.annotate import services as annotating
from annotation.annotate.queue import item_page
from annotation.datasets import assigning
from annotation.datasets.assigning import annotator_order, assign, routed_item_ids
from annotation.datasets.organizing import withdraw_item
from annotation.datasets.routing import routing_state, set_routing
from annotation.datasets.sampling import set_sample
from annotation.models import Annotation, Assignment, RoutedAnnotator, RoutedItem, RoutingOrder
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

ANSWER = {"commas": [1], "optional": []}


def records(count: int) -> list[dict]:
    return [{"id": f"c{index:03d}", "sentence_with_positions": "Ala [1] ma [2] kota."} for index in range(count)]


def routed(items: int, annotators: int, k: int, **settings):
    dataset = make_dataset("commas", records(items))
    dataset = set_routing(dataset, routing=True, answers_per_item=k, **settings)
    users = [make_user() for _ in range(annotators)]
    assign(dataset, users, k)
    return dataset, users


def submit(user, dataset, position: int, now=None):
    page = item_page(user, dataset.pk, position)
    annotating.save_answer(page=page, answer=ANSWER, submit=True, based_on_version=page.answer_version)


def loads(dataset, now=None) -> dict[int, int]:
    """Each item's load counted from the rows themselves: submitted answers plus open reservations."""
    now = now or timezone.now()
    submitted = dict(Annotation.objects.filter(item__dataset=dataset, status="submitted")
                     .values_list("item_id").annotate(n=Count("pk")).order_by())
    reserved = dict(Assignment.objects.filter(dataset=dataset, reserved_until__isnull=False)
                    .values_list("item_id").annotate(n=Count("pk")).order_by())
    return {item: submitted.get(item, 0) + reserved.get(item, 0) for item in set(submitted) | set(reserved)}


def counters_agree(dataset) -> bool:
    held = loads(dataset)
    return all(row.submitted + row.reserved == held.get(row.item_id, 0) for row in RoutedItem.objects.filter(dataset=dataset))


def test_twelve_annotators_in_turn_complete_twelve_items_every_36_answers():
    dataset, users = routed(items=60, annotators=12, k=3)
    answers = 0
    for turn in range(5):
        for user in users * 3:
            served = routing.next_item(user, dataset.pk)
            assert served.state == routing.ITEM
            submit(user, dataset, served.position)
            answers += 1
            assert max(loads(dataset).values()) <= 3
        complete = RoutedItem.objects.filter(dataset=dataset, submitted=3).count()
        assert complete == 12 * (turn + 1), f"after {answers} answers"
    assert counters_agree(dataset)
    assert all(routing.next_item(user, dataset.pk).state == routing.DONE for user in users)


def test_a_three_times_faster_annotator_never_waits_and_never_pushes_an_item_above_k():
    dataset, users = routed(items=30, annotators=4, k=3)
    fast, slow = users[0], users[1:]
    held = {}  # slow annotator -> (position, ticks left)
    for user in slow:
        held[user] = (routing.next_item(user, dataset.pk).position, 3)
    for _tick in range(60):
        served = routing.next_item(fast, dataset.pk)
        unanswered_below_k = RoutedItem.objects.filter(dataset=dataset).exclude(
            item__annotations__annotator=fast, item__annotations__status="submitted").filter(
            Q(submitted__lt=3)).exists()
        if served.state != routing.ITEM:
            # Nothing for them: then every item they have not answered is at k (answers and reservations).
            assert served.state == routing.DONE or not any(
                row.submitted + row.reserved < 3 for row in RoutedItem.objects.filter(dataset=dataset)
                .exclude(item__annotations__annotator=fast))
            if not unanswered_below_k:
                break
        else:
            submit(fast, dataset, served.position)
        for user in slow:
            position, left = held[user]
            if position is None:
                continue
            if left == 1:
                submit(user, dataset, position)
                following = routing.next_item(user, dataset.pk)
                held[user] = (following.position, 3)
            else:
                held[user] = (position, left - 1)
        assert max(loads(dataset).values()) <= 3
    assert counters_agree(dataset)
    fast_answers = Annotation.objects.filter(annotator=fast, status="submitted").count()
    slow_answers = Annotation.objects.filter(annotator=slow[0], status="submitted").count()
    assert fast_answers >= 2 * slow_answers


def test_an_answer_after_the_reservation_expired_is_stored_and_counted_as_late():
    dataset, (first, second, third) = routed(items=1, annotators=3, k=1)
    late = routing.next_item(first, dataset.pk)
    assert routing.next_item(second, dataset.pk).state == routing.WAITING  # reserved by the first
    later = timezone.now() + timedelta(minutes=21)
    taken = routing.next_item(second, dataset.pk, now=later)  # the first's reservation has expired
    assert taken.state == routing.ITEM
    submit(second, dataset, taken.position)
    submit(first, dataset, late.position)  # late: the item is at k already, and the answer is kept
    assert Annotation.objects.filter(item__dataset=dataset, status="submitted").count() == 2
    row = RoutedItem.objects.get(dataset=dataset)
    assert (row.submitted, row.reserved, row.late) == (2, 0, 1)
    assert routing.next_item(third, dataset.pk).state == routing.DONE
    state = routing_state(dataset, timezone.now())
    assert (state.late_answers, state.late_items) == (1, 1)


def test_an_item_released_from_a_lapsed_reservation_comes_back_to_its_holder_in_its_own_place():
    dataset, (holder, other) = routed(items=1, annotators=2, k=2)
    first = routing.next_item(holder, dataset.pk)
    later = timezone.now() + timedelta(minutes=21)
    assert routing.next_item(other, dataset.pk, now=later).state == routing.ITEM  # released the holder's
    assert not Assignment.objects.get(annotator=holder).reserved_until
    back = routing.next_item(holder, dataset.pk, now=later)
    assert (back.state, back.position) == (routing.ITEM, first.position)
    held = Assignment.objects.get(annotator=holder)  # the same one, reserved again
    assert (held.reserved_until, held.reservation_lapsed) == (back.reserved_until, False)
    assert RoutedAnnotator.objects.get(dataset=dataset, annotator=holder).served == 1
    assert RoutedItem.objects.get(dataset=dataset).reserved == 2
    assert counters_agree(dataset)


def test_skip_releases_the_item_and_it_comes_back_only_after_every_other():
    dataset, (user,) = routed(items=3, annotators=1, k=1)
    first = routing.next_item(user, dataset.pk)
    page = item_page(user, dataset.pk, first.position)
    routing.skip(page)
    assert RoutedItem.objects.get(item_id=page.item_id).reserved == 0
    seen = []
    for _ in range(2):
        served = routing.next_item(user, dataset.pk)
        seen.append(item_page(user, dataset.pk, served.position).item_id)
        submit(user, dataset, served.position)
    assert page.item_id not in seen
    back = routing.next_item(user, dataset.pk)
    assert back.position == first.position  # the skipped item, in its own place
    submit(user, dataset, back.position)
    assert routing.next_item(user, dataset.pk).state == routing.DONE


def served_item(user, dataset) -> int:
    return item_page(user, dataset.pk, routing.next_item(user, dataset.pk).position).item_id


# Chunks of 4 rows: the window of the untouched stage (64 rows) reaches past each.
SMALL_CHUNKS = 4


def test_an_order_stored_a_chunk_at_a_time_serves_every_item_once_in_the_order_drawn(monkeypatch):
    monkeypatch.setattr(assigning, "FIRST_ORDER_ROWS", SMALL_CHUNKS)
    items = SMALL_CHUNKS * 3 + 5  # chunks of 4, 4, 8, then the last 5
    dataset, (user,) = routed(items=items, annotators=1, k=1)
    member = RoutedAnnotator.objects.get(dataset=dataset, annotator=user)
    assert RoutingOrder.objects.filter(annotator=user).count() == SMALL_CHUNKS and not member.order_complete
    seen = []
    for _ in range(items):
        seen.append(served_item(user, dataset))
        submit(user, dataset, Assignment.objects.get(annotator=user, item_id=seen[-1]).position)
    assert seen == annotator_order(dataset, user, routed_item_ids(dataset))
    assert routing.next_item(user, dataset.pk).state == routing.DONE
    ranked = list(RoutingOrder.objects.filter(annotator=user).order_by("rank").values_list("item_id", "rank"))
    assert ranked == [(item_id, rank) for rank, item_id in enumerate(seen, start=1)]
    assert RoutedAnnotator.objects.get(pk=member.pk).order_complete


def test_an_item_in_progress_beyond_the_stored_order_is_served_first_and_its_skip_comes_back_last(monkeypatch):
    monkeypatch.setattr(assigning, "FIRST_ORDER_ROWS", SMALL_CHUNKS)
    dataset, (first, second) = routed(items=SMALL_CHUNKS * 4, annotators=2, k=2)
    stored = set(RoutingOrder.objects.filter(annotator=second).values_list("item_id", flat=True))
    # The first annotator skips their items until one lies beyond the second's stored order.
    while (taken := served_item(first, dataset)) in stored:
        routing.skip(item_page(first, dataset.pk, Assignment.objects.get(annotator=first, item_id=taken).position))
    assert served_item(second, dataset) == taken  # the one item of load 1
    page = item_page(second, dataset.pk, Assignment.objects.get(annotator=second, item_id=taken).position)
    routing.skip(page)
    skipped = RoutingOrder.objects.get(annotator=second, item_id=taken)
    assert skipped.skipped_at is not None
    assert skipped.rank == RoutingOrder.objects.filter(annotator=second).aggregate(last=Max("rank"))["last"]
    assert served_item(second, dataset) != taken  # after every other item now


def test_every_nth_item_served_is_a_control_item():
    dataset, (user,) = routed(items=12, annotators=1, k=1)
    pool = make_dataset("commas", [{"id": f"k{index}", "sentence_with_positions": "Kot [1] śpi."} for index in range(3)])
    pool.pool_of, pool.pool_kind = dataset, "control"
    pool.save()
    dataset.control_rate, dataset.control_seed = 4, "s"
    dataset.save()
    served = []
    while (next_one := routing.next_item(user, dataset.pk)).state == routing.ITEM:
        page = item_page(user, dataset.pk, next_one.position)
        served.append(page.external_id)
        submit(user, dataset, next_one.position)
    controls = [position for position, external_id in enumerate(served, start=1) if external_id.startswith("k")]
    assert len(controls) == 3 and len(served) == 15
    assert all((position - 1) // 4 == block for block, position in enumerate(controls))
    assert RoutedItem.objects.filter(dataset=dataset, submitted=1).count() == 12


def test_a_dataset_with_control_items_is_not_tried_in_one_statement_once_seen():
    dataset, (user,) = routed(items=12, annotators=1, k=1)
    dataset.control_rate, dataset.control_seed = 4, "s"
    dataset.save()
    submit(user, dataset, routing.next_item(user, dataset.pk).position)
    with CaptureQueriesContext(connection) as queries:
        routing.next_item(user, dataset.pk)
    assert not any(query["sql"].startswith("WITH gate AS") for query in queries.captured_queries)
    dataset.control_rate = 0
    dataset.save()
    submit(user, dataset, routing.next_item(user, dataset.pk).position)  # seen plain again
    with CaptureQueriesContext(connection) as queries:
        routing.next_item(user, dataset.pk)
    assert [query["sql"].startswith("WITH gate AS") for query in queries.captured_queries] == [False, True, False]


def test_items_outside_the_sample_are_never_served_nor_answered(client):
    dataset = make_dataset("commas", records(20))
    set_sample(dataset, 5, 7)
    set_routing(dataset, routing=True, answers_per_item=2)
    user = make_user()
    assign(dataset, [user], 2)
    sample = set(dataset.items.filter(sample_rank__isnull=False).values_list("id", flat=True))
    served = []
    while (next_one := routing.next_item(user, dataset.pk)).state == routing.ITEM:
        served.append(item_page(user, dataset.pk, next_one.position).item_id)
        submit(user, dataset, next_one.position)
    assert set(served) == sample and len(served) == 5
    outside = dataset.items.exclude(pk__in=sample).first()
    client.force_login(user)
    response = client.post("/api/annotations/", {"item": outside.pk, "answer": ANSWER, "status": "submitted"},
                           content_type="application/json")
    assert response.status_code in (403, 404, 400)
    assert not Annotation.objects.filter(item=outside).exists()


def test_the_pilot_goes_to_every_annotator_first_and_the_rest_waits_for_the_organizer():
    dataset = make_dataset("commas", records(10))
    set_sample(dataset, 8, 3)
    set_routing(dataset, routing=True, answers_per_item=1, pilot_size=2)
    users = [make_user() for _ in range(3)]
    assign(dataset, users, 1)
    pilot = list(dataset.items.filter(sample_rank__lte=2).order_by("sample_rank").values_list("id", flat=True))
    for user in users:
        for expected in pilot:  # exempt from k = 1: every annotator gets both
            served = routing.next_item(user, dataset.pk)
            assert item_page(user, dataset.pk, served.position).item_id == expected
            submit(user, dataset, served.position)
        assert routing.next_item(user, dataset.pk).state == routing.WAITING
    set_routing(dataset, pilot_open=True)
    served = routing.next_item(users[0], dataset.pk)
    assert item_page(users[0], dataset.pk, served.position).item_id not in pilot


def test_the_quota_bounds_the_items_and_the_progress_counts_against_it():
    dataset, (user, other) = routed(items=10, annotators=2, k=2, quota=4)
    for _ in range(4):
        served = routing.next_item(user, dataset.pk)
        submit(user, dataset, served.position)
    page = item_page(user, dataset.pk, served.position)
    assert (page.position, page.order_length, page.progress.submitted, page.progress.assigned) == (4, 4, 4, 4)
    assert routing.next_item(user, dataset.pk).state == routing.DONE
    assert routing.next_item(other, dataset.pk).state == routing.ITEM


def test_the_progress_total_is_every_served_item_without_a_quota():
    """Without a quota an annotator's order is every item less the withdrawn ones, or the sample."""
    dataset, (user,) = routed(items=7, annotators=1, k=1)
    withdraw_item(dataset.items.get(ordinal=6), make_user(role="organizer"), "a typo in the sentence")
    page = item_page(user, dataset.pk, routing.next_item(user, dataset.pk).position)
    assert (page.order_length, page.progress.assigned) == (6, 6)
    sampled = make_dataset("commas", records(7))
    set_sample(sampled, 5, seed=1)
    sampled = set_routing(sampled, routing=True, answers_per_item=1)
    assign(sampled, [user], 1)
    page = item_page(user, sampled.pk, routing.next_item(user, sampled.pk).position)
    assert (page.order_length, page.progress.assigned) == (5, 5)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("save_and_next", [False, True], ids=["choose-then-submit", "save-and-next"])
def test_eighteen_threads_at_once_never_put_an_item_above_k(save_and_next):
    """Each thread an annotator: asking for an item and submitting it, or (save & next) each
    submit reserving the next item with it."""
    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL (row locks)")
    dataset, users = routed(items=12, annotators=18, k=3)
    start = threading.Barrier(len(users))
    failures = []

    def work(user):
        try:
            start.wait()
            served = None
            for _ in range(6):
                if served is None or served.state != routing.ITEM:
                    served = routing.next_item(user, dataset.pk)
                if served.state != routing.ITEM:
                    continue
                if not save_and_next:
                    submit(user, dataset, served.position)
                    served = None
                    continue
                page = item_page(user, dataset.pk, served.position)
                _, served = annotating.submit_and_reserve_next(user, page=page, answer=ANSWER, based_on_version=0)
        except Exception as error:  # noqa: BLE001 - reported below, with the thread's user
            failures.append(f"{user}: {error!r}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    per_item = loads(dataset)
    assert max(per_item.values()) <= 3
    assert sum(per_item.values()) == 36  # every place was taken, none twice
    assert counters_agree(dataset)


@pytest.mark.django_db(transaction=True)
def test_one_annotators_requests_at_once_are_all_given_the_one_item_reserved():
    """Eight tabs of one annotator ask at once, five times over: each time all get the same
    position, and the annotator holds one reservation (the schema allows no second)."""
    if connection.vendor != "postgresql":
        pytest.fail("this test needs PostgreSQL (row locks)")
    dataset, (user, other) = routed(items=20, annotators=2, k=2)
    routing.next_item(other, dataset.pk)  # an item in progress beside the untouched ones
    tabs = 8

    def ask(start: threading.Barrier, served: list, failures: list):
        try:
            start.wait()
            served.append(routing.next_item(user, dataset.pk).position)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(repr(error))
        finally:
            connections.close_all()

    for _round in range(5):
        start, served, failures = threading.Barrier(tabs), [], []
        threads = [threading.Thread(target=ask, args=(start, served, failures)) for _ in range(tabs)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not failures
        assert len(set(served)) == 1, served
        assert Assignment.objects.filter(annotator=user, reserved_until__isnull=False).count() == 1
        submit(user, dataset, served[0])
    assert counters_agree(dataset)


def test_a_departed_annotators_reservations_go_back_to_routing():
    from annotation.datasets.assigning import release_items

    dataset, (leaving, staying) = routed(items=1, annotators=2, k=1)
    routing.next_item(leaving, dataset.pk)
    assert routing.next_item(staying, dataset.pk).state == routing.WAITING
    assert release_items(dataset, leaving).removed == {leaving.username: 1}
    assert routing.next_item(staying, dataset.pk).state == routing.ITEM
    assert routing.next_item(leaving, dataset.pk) is None  # served no more
    assert counters_agree(dataset)


@pytest.mark.parametrize("items", [10, 200])
def test_choosing_the_next_item_runs_the_same_queries_whatever_the_size(items, django_assert_num_queries):
    dataset, (user,) = routed(items=items, annotators=1, k=2)
    submit(user, dataset, routing.next_item(user, dataset.pk).position)
    # One statement (the annotator's row locked, the choice, its reservation); in a test,
    # inside a savepoint and its release.
    with django_assert_num_queries(3):
        routing.next_item(user, dataset.pk)


def test_a_lapsed_reservation_is_released_at_the_next_choice_and_only_then(django_assert_num_queries):
    dataset, (holder, other) = routed(items=1, annotators=2, k=1, reservation_minutes=20)
    routing.next_item(holder, dataset.pk)
    assert routing.next_item(other, dataset.pk).state == routing.WAITING
    later = timezone.now() + timedelta(minutes=21)
    # The one statement, which leaves a lapse to the rest (in a test, inside a savepoint and
    # its release); then the lock; the release (read, two writes); the choice; the transaction's two.
    with django_assert_num_queries(10):
        assert routing.next_item(other, dataset.pk, now=later).state == routing.ITEM
    assert Assignment.objects.get(annotator=holder).reservation_lapsed
    assert counters_agree(dataset)


def explained(cursor) -> list:
    """The plan an EXPLAIN (FORMAT JSON) just run on ``cursor`` returned (the driver may hand it
    over as text)."""
    plan = cursor.fetchone()[0]
    return json.loads(plan) if isinstance(plan, str) else plan


def generic_plan_rows(sql: str, params: dict) -> int:
    """Run ``sql`` (pyformat parameters) with PostgreSQL's generic plan, the one a statement
    prepared by the driver settles on after its first executions, and return the most rows
    one node of it read (returned or filtered out, over all its loops)."""
    names = list(dict.fromkeys(re.findall(r"%\((\w+)\)s", sql)))
    numbered = re.sub(r"%\((\w+)\)s", lambda found: f"${names.index(found.group(1)) + 1}", sql).replace("%%", "%")
    with connection.cursor() as cursor:
        cursor.execute(f"PREPARE generic_plan_check AS {numbered}")
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        # EXPLAIN takes no bound parameters: the values as literals.
        literals = ", ".join(Literal(params[name]).as_string(connection.connection) for name in names)
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE generic_plan_check({literals})")
        plan = explained(cursor)
        cursor.execute("DEALLOCATE generic_plan_check")

    def rows_read(node: dict) -> list[int]:
        read = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)) * node.get("Actual Loops", 1)
        return [read] + [rows for child in node.get("Plans", []) for rows in rows_read(child)]

    return max(rows_read(plan[0]["Plan"]))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
@pytest.mark.parametrize("statement", ["whole_choice", "member", "reserved_choice", "pilot", "in_progress", "untouched", "own", "skipped",
                                       "remains"])
def test_each_statement_of_the_choice_reads_a_bounded_number_of_rows_in_its_generic_plan(statement):
    """The choice's statements are prepared (server-side binding), and PostgreSQL plans a
    prepared statement generically after its first executions: such plans read every
    assignment of the database, every item of the dataset or the whole rest of an annotator's
    order before they were written to stop at the first rows of an index, and the items in
    progress of every routed dataset before the join of the items in progress was bounded to
    the dataset."""
    dataset, (user, *others) = routed(items=2000, annotators=4, k=2)
    for other in others:
        for _ in range(5):
            submit(other, dataset, routing.next_item(other, dataset.pk).position)
    # A study's participants besides: 60 orders of the dataset, each stored a chunk at a time.
    assign(dataset, [make_user() for _ in range(60)], 2)
    # A campaign's other work: 40 annotators' fixed queues of 100 items.
    fixed_items = list(make_dataset("commas", records(2000)).items.order_by("ordinal"))
    Assignment.objects.bulk_create(
        Assignment(dataset_id=item.dataset_id, item=item, annotator=annotator, position=position)
        for number, annotator in enumerate(make_user() for _ in range(40))
        for position, item in enumerate(fixed_items[number * 50:number * 50 + 100], 1)
    )
    # Another routed dataset of the campaign, 300 of its items in progress (their counters
    # alone: only the rows the statements read matter here).
    other_routed, _ = routed(items=400, annotators=1, k=2)
    RoutedItem.objects.filter(item__in=other_routed.items.order_by("ordinal")[:300]).update(touched=True, reserved=1)
    with connection.cursor() as cursor:
        for model in (Assignment, RoutedItem, RoutingOrder):
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
    member = RoutedAnnotator.objects.get(dataset=dataset, annotator=user)
    now = timezone.now()
    params = {"dataset": dataset.pk, "annotator": user.pk, "now": now, "k": 2, "room": True, "open": True,
              "cursor": member.cursor, "member": member.pk, "until": now + timedelta(minutes=20),
              "complete": member.order_complete}
    whole = {"member": routing._member_sql(True), "remains": routing._remains_sql(),
             "reserved_choice": routing._reserved_choice_sql(whole=False),
             "whole_choice": routing._reserved_choice_sql(whole=True)}
    sql = whole.get(statement) or routing._stage_sql(statement, True)
    assert generic_plan_rows(sql, params) <= 2 * routing.UNTOUCHED_WINDOW


def queue_walk_loops(user, dataset, position: int) -> int:
    """How many times the item page's query (for the annotator's item at ``position``) ran
    the walk of their queue for the next unanswered position (the scans of its alias ``q``)."""
    sql = queue._item_page_sql("a.dataset_id = %(dataset)s AND a.position = %(position)s")
    params = {"annotator": user.pk, "dataset": dataset.pk, "position": position, "submitted": "submitted"}
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        plan = explained(cursor)

    def loops(node: dict) -> int:
        own = node.get("Actual Loops", 0) if node.get("Alias") == "q" else 0
        return own + sum(loops(child) for child in node.get("Plans", []))

    return loops(plan[0]["Plan"])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_the_routed_item_page_does_not_walk_the_queue_which_routing_does_not_follow():
    """Save & next goes where routing sends it: the item page of a routed dataset reads no next
    unanswered position (the walk from the start of the queue read every position the
    annotator had answered), a fixed queue's page does."""
    dataset, (user,) = routed(items=60, annotators=1, k=2)
    for _ in range(30):
        submit(user, dataset, routing.next_item(user, dataset.pk).position)
    held = routing.next_item(user, dataset.pk).position
    assert item_page(user, dataset.pk, held).next_position is None
    assert queue_walk_loops(user, dataset, held) == 0

    fixed = make_dataset("commas", records(60))
    assign(fixed, [user], 1)
    for position in range(1, 31):
        submit(user, fixed, position)
    assert item_page(user, fixed.pk, 31).next_position == 32
    assert queue_walk_loops(user, fixed, 31) > 0
