"""What the adjudication page says of each answer: the discourse cards count the units an
answer is alone in, and the majority card shows its value."""

import pytest

from annotation.adjudicate.selectors import adjudication_case
from annotation.subtasks.discourse.differences import differences
from tests.adjudicate.conftest import wsd_answered
from tests.widgets import test_discourse

pytestmark = pytest.mark.django_db


def tree(*attachments):
    return {"discourse_units": [{"du_id": du_id, "head": head, "relation": relation}
                                for du_id, head, relation in attachments]}


def test_two_identical_discourse_trees_are_alone_in_no_unit():
    payload = test_discourse.passage(3, split=False)
    same = tree(("1.1", None, None), ("2.1", "1.1", "Elaboration"), ("2.2", "1.1", "Cause"))
    other = tree(("1.1", None, None), ("2.1", "1.1", "Elaboration"), ("2.2", "2.1", "Cause"))
    shown = differences(payload, [("A", same), ("B", same), ("C", other)], 3)
    assert shown.summaries == [
        "0 units differ from the others", "0 units differ from the others", "1 units differ from the others",
    ]


def test_the_majority_card_shows_the_majority_answer():
    answered = wsd_answered([["A", "B", "A"]])
    case = adjudication_case(answered.dataset, answered.items[0].pk)
    assert case.majority_summary == "A"
