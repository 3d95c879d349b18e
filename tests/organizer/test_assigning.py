import random
from collections import Counter, defaultdict

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from annotation.core.errors import Refused
from annotation.datasets.assigning import assign, release_items
from annotation.models import Annotation, Assignment
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


def wsd_dataset(n: int, name: str = "wsd-test"):
    records = [
        {
            "id": f"w{index}",
            "reference_sentence": "Zamek [[TARGET]]stoi[[/TARGET]].",
            "candidates": {label: f"To [[TARGET]]{label}[[/TARGET]]." for label in "ABCD"},
        }
        for index in range(n)
    ]
    return make_dataset("wsd", records, name=name)


def assignees_per_item(dataset) -> dict[str, list[str]]:
    result = defaultdict(list)
    for external_id, username in Assignment.objects.filter(dataset=dataset).values_list(
        "item__external_id", "annotator__username"
    ):
        result[external_id].append(username)
    return result


def loads(dataset) -> Counter:
    return Counter(Assignment.objects.filter(dataset=dataset).values_list("annotator__username", flat=True))


def queue(dataset, user) -> list[int]:
    """The annotator's items (as input ordinals) in their order."""
    return list(
        Assignment.objects.filter(dataset=dataset, annotator=user).order_by("position").values_list("item__ordinal", flat=True)
    )


def submit(dataset, user, ordinals) -> None:
    for item in dataset.items.filter(ordinal__in=ordinals):
        Annotation.objects.create(
            item=item, annotator=user, answer={"answer": "A"}, status="submitted", submitted_at=timezone.now()
        )


@pytest.mark.parametrize(("items", "annotators", "per_item"), [(10, 4, 2), (7, 3, 2), (13, 5, 3), (5, 3, 3), (9, 2, 1)])
def test_each_item_gets_k_distinct_annotators_balanced(items, annotators, per_item):
    dataset = wsd_dataset(items)
    users = [make_user() for _ in range(annotators)]
    result = assign(dataset, users, per_item)

    assert result.total_added == items * per_item
    for names in assignees_per_item(dataset).values():
        assert len(names) == len(set(names)) == per_item
    assert len(assignees_per_item(dataset)) == items
    counts = loads(dataset)
    assert set(counts) == {user.username for user in users}
    assert max(counts.values()) - min(counts.values()) <= 1


def test_each_annotator_has_a_deterministic_shuffled_order_with_positions_1_to_n():
    dataset = wsd_dataset(30, name="order-test")
    users = [make_user(username=name) for name in ("ala", "bartek", "celina")]
    assign(dataset, users, 3)
    for user in users:
        expected = list(range(30))
        random.Random(f"order-test:{user.username}").shuffle(expected)
        assert queue(dataset, user) == expected
        positions = list(Assignment.objects.filter(dataset=dataset, annotator=user).values_list("position", flat=True))
        assert sorted(positions) == list(range(1, 31))
    orders = {tuple(queue(dataset, user)) for user in users}
    assert len(orders) == 3


def test_the_same_assignment_is_made_again_from_scratch():
    users = [make_user(username=name) for name in ("ala", "bartek", "celina", "darek")]
    dataset = wsd_dataset(11, name="again")
    assign(dataset, users, 2)
    first = {user.username: queue(dataset, user) for user in users}
    dataset.delete()
    dataset = wsd_dataset(11, name="again")
    assign(dataset, users, 2)
    assert {user.username: queue(dataset, user) for user in users} == first


def test_running_again_only_adds():
    dataset = wsd_dataset(12)
    a, b, c, d = (make_user() for _ in range(4))
    assign(dataset, [a, b, c], 2)
    before = set(Assignment.objects.values_list("pk", "item_id", "annotator_id", "position"))

    assert assign(dataset, [a, b, c], 2).total_added == 0
    result = assign(dataset, [a, b, c, d], 3)
    assert result.total_added == 12
    after = set(Assignment.objects.values_list("pk", "item_id", "annotator_id", "position"))
    assert before <= after
    for names in assignees_per_item(dataset).values():
        assert len(set(names)) == 3
    # The new items of an annotator go after their existing queue.
    for user in (a, b, c, d):
        positions = sorted(Assignment.objects.filter(dataset=dataset, annotator=user).values_list("position", flat=True))
        assert positions == list(range(1, len(positions) + 1))
    # d started empty, so most of the new work goes to d.
    assert loads(dataset)[d.username] == max(loads(dataset).values())


@pytest.mark.parametrize(("items", "annotators", "per_item"), [(12, 4, 2), (20, 5, 3), (17, 4, 1), (31, 6, 3), (40, 4, 3)])
def test_release_moves_unanswered_items_keeping_k_and_balance(items, annotators, per_item):
    dataset = wsd_dataset(items)
    # Named, not numbered by the factories' counter: the names seed the queue orders, and
    # whether an even spread is possible depends on them (at 40-4-3 a released item can
    # only go to the one annotator it lacks).
    a, b, *others = (make_user(username=f"release-{number}") for number in range(annotators))
    assign(dataset, [a, b, *others], per_item)
    b_items = queue(dataset, b)
    submit(dataset, b, b_items[:2])
    submit(dataset, a, queue(dataset, a)[:1])
    # A draft is not an answer: that item is released too.
    Annotation.objects.create(item=dataset.items.get(ordinal=b_items[2]), annotator=b, answer={}, status="draft")

    result = release_items(dataset, b)

    assert result.removed == {b.username: len(b_items) - 2}
    assert result.total_added == len(b_items) - 2
    assert sorted(queue(dataset, b)) == sorted(b_items[:2])
    for names in assignees_per_item(dataset).values():
        assert len(names) == len(set(names)) == per_item
    remaining = {name: count for name, count in loads(dataset).items() if name != b.username}
    assert max(remaining.values()) - min(remaining.values()) <= 1
    for user in (a, *others):
        positions = list(Assignment.objects.filter(dataset=dataset, annotator=user).values_list("position", flat=True))
        assert len(positions) == len(set(positions))


def test_release_to_named_annotators():
    dataset = wsd_dataset(6)
    a, b, c = (make_user() for _ in range(3))
    assign(dataset, [a, b], 1)
    release_items(dataset, b, [c])
    assert loads(dataset) == Counter({a.username: 3, c.username: 3})


def test_release_that_would_break_k_is_refused_and_changes_nothing():
    dataset = wsd_dataset(4)
    a, b = make_user(), make_user()
    assign(dataset, [a, b], 2)
    before = list(Assignment.objects.values_list("pk", flat=True))
    with pytest.raises(Refused, match="no other annotator"):
        release_items(dataset, b)
    assert list(Assignment.objects.values_list("pk", flat=True)) == before


def test_k_larger_than_the_annotators_is_refused():
    dataset = wsd_dataset(3)
    with pytest.raises(Refused, match="need at least 3 annotators"):
        assign(dataset, [make_user(), make_user()], 3)
    assert Assignment.objects.count() == 0


def test_an_organizer_cannot_be_assigned():
    dataset = wsd_dataset(3)
    organizer = make_user("organizer", username="olga")
    organizer.groups.add(Group.objects.get(name="annotator"))
    with pytest.raises(Refused, match="olga can see the gold of wsd-test and so cannot annotate it"):
        assign(dataset, [make_user(), organizer], 1)
    assert Assignment.objects.count() == 0


def test_an_adjudicator_is_refused_once_gold_is_revealed():
    dataset = wsd_dataset(4)
    adjudicator = make_user("adjudicator", username="adam")
    adjudicator.groups.add(Group.objects.get(name="annotator"))
    assign(dataset, [adjudicator], 1)
    dataset.gold_revealed = True
    dataset.save()
    adjudicator = type(adjudicator).objects.get(pk=adjudicator.pk)
    with pytest.raises(Refused, match="adam can see the gold"):
        assign(dataset, [adjudicator, make_user()], 2)


def test_a_user_outside_the_annotator_group_is_refused():
    dataset = wsd_dataset(2)
    with pytest.raises(Refused, match="not in the annotator group"):
        assign(dataset, [make_user("adjudicator", username="zed")], 1)


def test_assign_command(capsys):
    dataset = wsd_dataset(6, name="cmd")
    for name in ("ala", "bartek", "celina"):
        make_user(username=name)
    call_command("assign", "cmd", "--annotators", "ala,bartek,celina", "--per-item", "2")
    assert "12 assignments added to cmd" in capsys.readouterr().out
    call_command("assign", "cmd", "--release", "bartek", "--annotators", "ala,celina")
    assert loads(dataset)["bartek"] == 0
    with pytest.raises(CommandError, match="no user named nobody"):
        call_command("assign", "cmd", "--annotators", "ala,nobody", "--per-item", "1")
    make_user("organizer", username="olga")
    with pytest.raises(CommandError, match="1 problem; nothing assigned"):
        call_command("assign", "cmd", "--annotators", "olga", "--per-item", "1")
    assert "olga can see the gold of cmd and so cannot annotate it" in capsys.readouterr().err
