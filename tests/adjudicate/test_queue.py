"""The adjudication queue: which items enter it, in which order, claims, stale decisions, withdrawal."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.adjudicate import selectors as cases
from annotation.adjudicate import services as adjudicating
from annotation.core.errors import ClaimedByOther, NotAdjudicatorHere, Refused, StaleDecision
from annotation.datasets.organizing import set_frozen
from annotation.models import Adjudication, AdjudicationClaim, Dataset
from tests.adjudicate.conftest import person, submit, wsd_answered

pytestmark = pytest.mark.django_db


def decide(item, adjudicator, version=0, **decision):
    return adjudicating.save_decision(item=item, adjudicator=adjudicator, based_on_version=version, **decision)


def test_only_complete_disagreements_enter_the_queue(adjudicator, django_assert_max_num_queries):
    answered = wsd_answered([["A", "B", "A"], ["A", "A", "A"], ["A", "B", None], ["C", "D", "C"]])
    first, agreed, incomplete, last = answered.items
    assert cases.next_case(adjudicator, answered.dataset.pk) == first.pk
    assert cases.next_case(adjudicator, answered.dataset.pk, first.pk) == last.pk
    assert cases.next_case(adjudicator, answered.dataset.pk, last.pk) == first.pk  # wraps round
    assert cases.dataset_counts(answered.dataset.pk) == cases.CaseCounts(open=2)


def test_a_frozen_dataset_lets_incomplete_items_in(adjudicator):
    answered = wsd_answered([["A", "B", None]])
    assert cases.next_case(adjudicator, answered.dataset.pk) is None
    set_frozen(answered.dataset, True)
    assert cases.next_case(adjudicator, answered.dataset.pk) == answered.items[0].pk


def test_flagged_items_come_after_the_disagreements(adjudicator):
    answered = wsd_answered([["A", "A"], ["A", "B"]])
    flagged, disagreement = answered.items
    flagged.flags.create(raised_by=answered.annotators[0], comment="Dwa sensy pasują.")
    assert cases.next_case(adjudicator, answered.dataset.pk) == disagreement.pk
    assert cases.next_case(adjudicator, answered.dataset.pk, disagreement.pk) == flagged.pk


def test_a_claimed_item_goes_to_nobody_else_until_the_claim_expires(adjudicator):
    answered = wsd_answered([["A", "B"], ["C", "D"]])
    first, second = answered.items
    other = person("adjudicator")
    assert adjudicating.claim_item(item=first, adjudicator=adjudicator)
    assert not adjudicating.claim_item(item=first, adjudicator=other)
    assert cases.next_case(other, answered.dataset.pk) == second.pk
    assert cases.next_case(adjudicator, answered.dataset.pk) == first.pk
    try:
        decide(first, other, source="annotation", annotation_id=first.annotations.first().pk)
    except ClaimedByOther:
        pass
    else:
        raise AssertionError("a decision on another adjudicator's item was saved")
    AdjudicationClaim.objects.filter(item=first).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert cases.next_case(other, answered.dataset.pk) == first.pk
    assert adjudicating.claim_item(item=first, adjudicator=other)


def test_a_decision_settles_and_a_changed_answer_reopens_it(adjudicator):
    answered = wsd_answered([["A", "B"]])
    (item,) = answered.items
    taken = item.annotations.get(annotator=answered.annotators[1])
    adjudication = decide(item, adjudicator, source="annotation", annotation_id=taken.pk, note="B pasuje.")
    assert (adjudication.answer, adjudication.source, adjudication.version) == ({"answer": "B"}, "annotation", 1)
    assert cases.next_case(adjudicator, answered.dataset.pk) is None
    assert cases.dataset_counts(answered.dataset.pk) == cases.CaseCounts(settled=1)

    submit(answered.dataset, answered.annotators[0], item, {"answer": "C"})
    assert cases.dataset_counts(answered.dataset.pk) == cases.CaseCounts(stale=1)
    assert cases.next_case(adjudicator, answered.dataset.pk) == item.pk
    case = cases.adjudication_case(answered.dataset, item.pk)
    assert case.status == cases.STALE
    assert [(c.before, c.after) for c in case.changes] == [({"answer": "A"}, {"answer": "C"})]


def test_a_stale_decision_is_refused_and_revisions_are_kept(adjudicator):
    answered = wsd_answered([["A", "B"]])
    (item,) = answered.items
    decide(item, adjudicator, source="edited", answer={"answer": "D"})
    try:
        decide(item, adjudicator, source="edited", answer={"answer": "C"}, version=0)
    except StaleDecision as refusal:
        assert refusal.current.version == 1
    else:
        raise AssertionError("a decision on an old version was saved")
    decide(item, adjudicator, source="edited", answer={"answer": "C"}, version=1)
    adjudication = Adjudication.objects.get(item=item)
    assert [(r.version, r.answer) for r in adjudication.revisions.all()] == [(1, {"answer": "D"}), (2, {"answer": "C"})]


def test_the_final_answer_passes_the_annotators_checks(adjudicator):
    answered = wsd_answered([["A", "B"]])
    (item,) = answered.items
    for bad in ({"answer": "E"}, {"answer": "A", "extra": 1}, None, "A"):
        try:
            decide(item, adjudicator, source="edited", answer=bad)
        except Refused as refusal:
            assert refusal.messages
        else:
            raise AssertionError(f"{bad!r} was saved")
    assert not Adjudication.objects.exists()


def test_a_withdrawn_item_leaves_the_queue(adjudicator):
    from annotation.datasets.organizing import resolve_flag

    answered = wsd_answered([["A", "B"], ["C", "D"]])
    first, second = answered.items
    flag = first.flags.create(raised_by=answered.annotators[0], comment="Zepsute zdanie.")
    organizer = person("organizer")
    resolve_flag(flag, organizer, "Usunięte.", withdraw=True)
    first.refresh_from_db()
    assert first.withdrawn_at is not None and first.withdrawn_by == organizer
    assert cases.next_case(adjudicator, answered.dataset.pk) == second.pk
    assert cases.dataset_counts(answered.dataset.pk) == cases.CaseCounts(open=1)
    assert cases.adjudication_case(answered.dataset, first.pk) is None


def test_an_annotator_of_the_dataset_may_not_adjudicate_it():
    answered = wsd_answered([["A", "B"]])
    both = answered.annotators[0]
    both.groups.add(*person("adjudicator").groups.all())
    both = type(both).objects.get(pk=both.pk)  # roles are cached per user object
    assert not adjudicating.may_adjudicate(both, answered.dataset.pk)
    try:
        decide(answered.items[0], both, source="edited", answer={"answer": "A"})
    except NotAdjudicatorHere:
        pass
    else:
        raise AssertionError("an annotator of the dataset adjudicated it")


def test_counts_per_dataset_leave_out_datasets_the_user_annotates(adjudicator):
    answered = wsd_answered([["A", "B"]])
    rows = cases.adjudicator_datasets(adjudicator)
    assert [(row.dataset, row.counts) for row in rows] == [(answered.dataset, cases.CaseCounts(open=1))]
    annotator = answered.annotators[0]
    assert cases.adjudicator_datasets(annotator) == []
    assert Dataset.objects.count() == 1
