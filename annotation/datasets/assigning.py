"""Assignment of a dataset's items to annotators: k distinct annotators per item, balanced.
Only the dataset's sample is assigned (annotation.datasets.sampling), so items outside it are
never served.

Each annotator works through their items in their own order: the dataset's items shuffled by
`random.Random(f"{dataset}:{username}")`, so the order is the same on every machine and run
(`hash()` is salted per process and is never used). Items added later go to the end of the
queue in that same order, so nothing already in a queue moves.

Control items: with a control pool and `Dataset.control_rate` N, one position in every block
of N positions of each queue (block b: positions bN+1..bN+N) holds a control item, as an
ordinary assignment of the dataset whose item is the control pool's. Which position of the
block, and which control item, follow `random.Random(f"{control_seed}:{dataset}:{username}...")`,
so the interleaving is the same on every run with the same seed. Each control item appears
at most once per annotator; when the pool is used up, the queue goes on without them.
"""

import random
from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Exists, F, Max, OuterRef

from annotation.core import sql_rows
from annotation.core.errors import Refused
from annotation.core.problems import problem
from annotation.core.roles import ANNOTATOR, can_see_gold, check_may_manage, has_role
from annotation.core.statistics import analyze_after_commit
from annotation.datasets.sampling import served_items
from annotation.models import Adjudication, Annotation, Assignment, Dataset, Item, RoutedAnnotator, RoutedItem, RoutingOrder


@dataclass(frozen=True)
class AssignmentResult:
    added: dict[str, int]  # username -> assignments added
    removed: dict[str, int]  # username -> assignments taken away (release only)

    @property
    def total_added(self) -> int:
        return sum(self.added.values())


def annotator_order(dataset: Dataset, user: User, item_ids: list[int]) -> list[int]:
    """The annotator's deterministic order of the given item ids (given in input order)."""
    order = list(item_ids)
    random.Random(f"{dataset.name}:{user.get_username()}").shuffle(order)
    return order


def control_slot(dataset: Dataset, username: str, block: int) -> int:
    """The offset (0..control_rate-1) of the control position in block ``block`` of the queue."""
    return random.Random(f"{dataset.control_seed}:{dataset.name}:{username}:{block}").randrange(dataset.control_rate)


def is_control_position(dataset: Dataset, username: str, position: int) -> bool:
    """Whether ``position`` of the annotator's queue holds a control item (while any is left)."""
    if not dataset.control_rate:
        return False
    block, offset = divmod(position - 1, dataset.control_rate)
    return offset == control_slot(dataset, username, block)


def control_items_left(dataset: Dataset, user: User) -> list[int]:
    """The control pool's items the annotator has not been given yet, in their seeded order."""
    if not dataset.control_rate:
        return []
    given = Assignment.objects.filter(dataset=dataset, annotator=user).values("item_id")
    ids = list(
        Item.objects.filter(dataset__pool_of=dataset, dataset__pool_kind=Dataset.PoolKind.CONTROL,
                            dataset__archived_at__isnull=True)
        .exclude(pk__in=given).order_by("ordinal").values_list("id", flat=True)
    )
    random.Random(f"{dataset.control_seed}:{dataset.name}:{user.get_username()}").shuffle(ids)
    return ids


def assign(dataset: Dataset, annotators: list[User], per_item: int) -> AssignmentResult:
    """Give every item `per_item` distinct annotators, adding to what exists, never removing.
    A routed dataset (annotation.datasets.routing) takes the annotators in instead (``join``):
    its answers per item are its own setting."""
    if Dataset.objects.filter(pk=dataset.pk, routing=True).exists():
        return join(dataset, annotators)
    check_annotators(dataset, annotators)
    if per_item < 1:
        raise Refused.of("per_item_too_small")
    if per_item > len(annotators):
        raise Refused.of("too_few_annotators", per_item=per_item, given=len(annotators))
    with transaction.atomic():
        dataset = _lock(dataset)
        assignees, load = _current_assignments(dataset)
        item_ids = list(served_items(dataset).order_by("ordinal").values_list("id", flat=True))
        new: dict[User, set[int]] = defaultdict(set)
        rng = random.Random(f"{dataset.name}:assign")
        for item_id in item_ids:
            needed = per_item - len(assignees[item_id])
            if needed <= 0:
                continue
            candidates = [user for user in annotators if user.pk not in assignees[item_id]]
            for user in _least_loaded(candidates, load, rng)[:needed]:
                new[user].add(item_id)
                assignees[item_id].add(user.pk)
                load[user.pk] += 1
        _rebalance(annotators, new, assignees, load)
        _append_to_queues(dataset, new, item_ids)
        analyze_after_commit(Assignment)
    return AssignmentResult(added={user.get_username(): len(ids) for user, ids in new.items() if ids}, removed={})


def release_items(
    dataset: Dataset, departed: User, annotators: list[User] | None = None, *, by: User | None = None
) -> AssignmentResult:
    """Move the departed annotator's unanswered items to others, keeping k and the balance.

    Items the departed annotator submitted stay theirs. `annotators` is the pool that takes
    over; by default every other annotator already assigned to the dataset. `by`: the user
    who asked (None from the command line), who must be allowed to manage the departed account.
    """
    if by is not None:
        check_may_manage(by, departed)
    if Dataset.objects.filter(pk=dataset.pk, routing=True).exists():
        return _leave_routing(dataset, departed)
    with transaction.atomic():
        dataset = _lock(dataset)
        submitted = Annotation.objects.filter(
            item=OuterRef("item"), annotator=OuterRef("annotator"), status=Annotation.Status.SUBMITTED
        )
        # Control items stay where they are: each annotator has their own.
        unanswered = Assignment.objects.filter(dataset=dataset, item__dataset=dataset, annotator=departed).exclude(
            Exists(submitted)
        )
        released_ids = list(unanswered.order_by("item__ordinal").values_list("item_id", flat=True))
        if not released_ids:
            return AssignmentResult(added={}, removed={})
        if annotators is None:
            annotators = list(
                User.objects.filter(assignments__dataset=dataset)
                .exclude(pk=departed.pk)
                .distinct()
                .order_by("username")
            )
        else:
            annotators = [user for user in annotators if user.pk != departed.pk]
        check_annotators(dataset, annotators)
        assignees, load = _current_assignments(dataset)
        for item_id in released_ids:
            assignees[item_id].discard(departed.pk)
        # Items few annotators can take are placed first, while those few still have room.
        released_ids.sort(key=lambda item_id: sum(user.pk not in assignees[item_id] for user in annotators))
        new: dict[User, set[int]] = defaultdict(set)
        rng = random.Random(f"{dataset.name}:release:{departed.get_username()}")
        for item_id in released_ids:
            candidates = [user for user in annotators if user.pk not in assignees[item_id]]
            if not candidates:
                raise Refused.of("no_other_annotator", item=_external_id(item_id),
                                 annotators=", ".join(user.get_username() for user in annotators))
            user = _least_loaded(candidates, load, rng)[0]
            new[user].add(item_id)
            assignees[item_id].add(user.pk)
            load[user.pk] += 1
        _rebalance(annotators, new, assignees, load)
        Assignment.objects.filter(dataset=dataset, annotator=departed, item_id__in=released_ids).delete()
        item_ids = list(served_items(dataset).order_by("ordinal").values_list("id", flat=True))
        _append_to_queues(dataset, new, item_ids)
        analyze_after_commit(Assignment)
    return AssignmentResult(
        added={user.get_username(): len(ids) for user, ids in new.items() if ids},
        removed={departed.get_username(): len(released_ids)},
    )


# Rows of an annotator's order written when they join (two windows of the untouched stage,
# annotation.annotate.routing.UNTOUCHED_WINDOW); each later chunk doubles what is stored.
FIRST_ORDER_ROWS = 128


def join(dataset: Dataset, annotators: list[User], *, quota: int | None = None,
         deadline: datetime | None = None) -> AssignmentResult:
    """Make the annotators the routed dataset's (those already in it aside), each with their own
    order of its items, drawn once (its first FIRST_ORDER_ROWS rows stored, the rest as
    extend_order needs them), and ``quota`` and ``deadline`` of their own (a panel
    participant's): ``added`` counts the items each may now be given."""
    check_annotators(dataset, annotators)
    # No savepoint inside a caller's transaction (a panel participant's entry): a failure here
    # fails the whole of it anyway.
    with transaction.atomic(savepoint=False):
        # FOR NO KEY UPDATE: joins wait for each other, while the positions routing inserts
        # meanwhile (whose foreign key takes a key-share lock of this row) do not wait.
        dataset = Dataset.objects.select_for_update(no_key=True).get(pk=dataset.pk)
        present = set(dataset.routed_annotators.filter(annotator__in=annotators).values_list("annotator_id", flat=True))
        item_ids = routed_item_ids(dataset)
        added: dict[str, int] = {}
        for user in annotators:
            if user.pk in present:
                continue
            order = annotator_order(dataset, user, item_ids)
            RoutedAnnotator.objects.create(dataset=dataset, annotator=user, quota=quota, deadline=deadline,
                                           order_complete=len(order) <= FIRST_ORDER_ROWS)
            insert_order(dataset, user, order[:FIRST_ORDER_ROWS])
            added[user.get_username()] = len(item_ids)
    return AssignmentResult(added=added, removed={})


def routed_item_ids(dataset: Dataset) -> list[int]:
    """The routed dataset's items, in input order: what annotator_order shuffles. Read by
    hand: each panel participant's entry reads them all, and the ORM's iteration of a
    thousand rows took longer than the database's answer."""
    with connection.cursor() as cursor:
        cursor.execute(f"""SELECT r.item_id FROM {sql_rows.table(RoutedItem)} r JOIN {sql_rows.table(Item)} i ON i.id = r.item_id
            WHERE r.dataset_id = %s ORDER BY i.ordinal""", [dataset.pk])
        return [item_id for (item_id,) in cursor.fetchall()]


def extend_order(member: RoutedAnnotator) -> bool:
    """Store the next chunk of the annotator's order (``member`` locked, its dataset and
    annotator loaded): as many rows as are stored, at least FIRST_ORDER_ROWS, of the items
    not stored yet, in the order drawn when they joined. Returns whether rows were added;
    ``order_complete`` is saved once nothing is left."""
    dataset, user = member.dataset, member.annotator
    stored = RoutingOrder.objects.filter(dataset=dataset, annotator=user)
    ranked = dict(stored.values_list("item_id", "rank"))
    rest = [item_id for item_id in annotator_order(dataset, user, routed_item_ids(dataset)) if item_id not in ranked]
    chunk = rest[: max(FIRST_ORDER_ROWS, len(ranked))]
    insert_order(dataset, user, chunk, after=max(ranked.values(), default=0))
    member.order_complete = len(chunk) == len(rest)
    if member.order_complete:
        member.save(update_fields=["order_complete"])
    return bool(chunk)


def insert_order(dataset: Dataset, user: User, item_ids: list[int], after: int = 0) -> None:
    """The annotator's order of the routed dataset's items (``item_ids`` in that order) as
    their RoutingOrder rows, ranks from ``after`` + 1."""
    if connection.vendor == "postgresql":
        # One statement of one array: a row object and five parameters per item (bulk_create)
        # took a panel participant's entry most of its time (1,000 items: 61 ms against 9 ms).
        with connection.cursor() as cursor:
            cursor.execute(f"""INSERT INTO {sql_rows.table(RoutingOrder)} (dataset_id, annotator_id, item_id, rank)
                SELECT %s, %s, t.item_id, %s + t.rank FROM unnest(%s::bigint[]) WITH ORDINALITY AS t(item_id, rank)""",
                           [dataset.pk, user.pk, after, item_ids])
        return
    RoutingOrder.objects.bulk_create([RoutingOrder(dataset=dataset, annotator=user, item_id=item_id, rank=rank)
                                      for rank, item_id in enumerate(item_ids, start=after + 1)], batch_size=2000)


def _leave_routing(dataset: Dataset, departed: User) -> AssignmentResult:
    """A routed dataset: the departed annotator's reservations go back to routing (their items'
    load falls) and they are served no more; what they submitted stays theirs."""
    with transaction.atomic():
        submitted = Annotation.objects.filter(item=OuterRef("item"), annotator=departed, status=Annotation.Status.SUBMITTED)
        unanswered = list(Assignment.objects.select_for_update().filter(dataset=dataset, annotator=departed)
                          .exclude(Exists(submitted)).order_by("item_id").values_list("pk", "item_id", "reserved_until"))
        for _pk, item_id, reserved_until in unanswered:
            if reserved_until is not None:
                RoutedItem.objects.filter(item_id=item_id).update(reserved=F("reserved") - 1)
        Assignment.objects.filter(pk__in=[pk for pk, _item_id, _reserved in unanswered]).delete()
        removed = len(unanswered)
        RoutingOrder.objects.filter(dataset=dataset, annotator=departed).delete()
        RoutedAnnotator.objects.filter(dataset=dataset, annotator=departed).delete()
    return AssignmentResult(added={}, removed={departed.get_username(): removed})


def check_annotators(dataset: Dataset, annotators: list[User]) -> None:
    if not annotators:
        raise Refused.of("no_annotators")
    if len({user.pk for user in annotators}) != len(annotators):
        raise Refused.of("annotator_twice")
    refusals = []
    adjudicators = set(
        Adjudication.objects.filter(item__dataset=dataset, adjudicator__in=annotators).values_list("adjudicator", flat=True)
    )
    for user in annotators:
        name = user.get_username()
        if user.pk in adjudicators:
            refusals.append(problem("annotator_adjudicated", name=name, dataset=dataset.name))
        elif can_see_gold(user, dataset):
            refusals.append(problem("annotator_sees_gold", name=name, dataset=dataset.name))
        elif not user.is_active:
            refusals.append(problem("annotator_inactive", name=name))
        elif not has_role(user, ANNOTATOR):
            refusals.append(problem("not_annotator", name=name))
    if refusals:
        raise Refused(refusals)


def _lock(dataset: Dataset) -> Dataset:
    # One assignment run at a time per dataset: the loads read below stay true until commit.
    return Dataset.objects.select_for_update().get(pk=dataset.pk)


def _current_assignments(dataset: Dataset) -> tuple[dict[int, set[int]], Counter]:
    assignees: dict[int, set[int]] = defaultdict(set)
    load: Counter = Counter()
    # Control items (the control pool's) are no load: every annotator gets them at the same rate.
    own = Assignment.objects.filter(dataset=dataset, item__dataset=dataset)
    for item_id, annotator_id in own.values_list("item_id", "annotator_id"):
        assignees[item_id].add(annotator_id)
        load[annotator_id] += 1
    return assignees, load


def _least_loaded(candidates: list[User], load: Counter, rng: random.Random) -> list[User]:
    # Ties are broken by a seeded shuffle, not by name: names would pair the same people on
    # every item (a+b, c+d, a+b, ...), which leaves nobody to take a departed annotator's
    # items and tells nothing about agreement between other pairs.
    shuffled = sorted(candidates, key=lambda user: user.get_username())
    rng.shuffle(shuffled)
    return sorted(shuffled, key=lambda user: load[user.pk])


def _rebalance(
    pool: list[User], new: dict[User, set[int]], assignees: dict[int, set[int]], load: Counter
) -> None:
    """Even out the pool's loads by moving new assignments along chains of annotators.

    Greedy placement can get stuck when items may go to few annotators only (a released item
    cannot go to those who have it already). A chain x -> y -> ... -> z moves one new item
    from each annotator to the next, so x loses one, z gains one and nobody else changes;
    chains are applied while some z has at least two fewer items than x.
    """
    while max(load[user.pk] for user in pool) - min(load[user.pk] for user in pool) > 1:
        for source in sorted(pool, key=lambda user: -load[user.pk]):
            chain = _chain_to_lighter(source, pool, new, assignees, load)
            if chain:
                break
        else:
            return
        for item_id, giver, taker in chain:
            new[giver].discard(item_id)
            new[taker].add(item_id)
            assignees[item_id].discard(giver.pk)
            assignees[item_id].add(taker.pk)
        load[chain[0][1].pk] -= 1
        load[chain[-1][2].pk] += 1


def _chain_to_lighter(
    source: User, pool: list[User], new: dict[User, set[int]], assignees: dict[int, set[int]], load: Counter
) -> list[tuple[int, User, User]] | None:
    """Breadth-first: the shortest chain of (item, giver, taker) from source to a lighter annotator."""
    reached: dict[User, tuple[User, int] | None] = {source: None}
    frontier = deque([source])
    while frontier:
        giver = frontier.popleft()
        for item_id in sorted(new[giver]):
            for taker in pool:
                if taker in reached or taker.pk in assignees[item_id]:
                    continue
                reached[taker] = (giver, item_id)
                if load[taker.pk] <= load[source.pk] - 2:
                    chain = []
                    while reached[taker] is not None:
                        giver, item_id = reached[taker]
                        chain.append((item_id, giver, taker))
                        taker = giver
                    return chain[::-1]
                frontier.append(taker)
    return None


def _append_to_queues(dataset: Dataset, new: dict[User, list[int]], item_ids: list[int]) -> None:
    last_positions = dict(
        Assignment.objects.filter(dataset=dataset, annotator__in=list(new))
        .values("annotator_id")
        .annotate(last=Max("position"))
        .values_list("annotator_id", "last")
    )
    rows = []
    for user, ids in new.items():
        wanted = set(ids)
        start = last_positions.get(user.pk) or 0
        ordered = [item_id for item_id in annotator_order(dataset, user, item_ids) if item_id in wanted]
        controls = control_items_left(dataset, user)
        position = start
        for item_id in ordered:
            position += 1
            while controls and is_control_position(dataset, user.get_username(), position):
                rows.append(Assignment(dataset=dataset, item_id=controls.pop(0), annotator=user, position=position))
                position += 1
            rows.append(Assignment(dataset=dataset, item_id=item_id, annotator=user, position=position))
    Assignment.objects.bulk_create(rows, batch_size=2000)


def _external_id(item_id: int) -> str:
    return Item.objects.values_list("external_id", flat=True).get(pk=item_id)
