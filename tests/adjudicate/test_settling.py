"""Settling by the majority, agreed items, who may be assigned, and the differences shown."""

import pytest

from annotation.adjudicate import selectors as cases
from annotation.adjudicate import services as adjudicating
from annotation.adjudicate.services import set_adjudication_settings
from annotation.core.errors import Refused
from annotation.datasets.assigning import assign
from annotation.datasets.organizing import set_frozen
from annotation.models import Adjudication
from annotation.subtasks.differences import differences
from tests.adjudicate.conftest import person, submit, wsd_answered
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db


def auto(dataset, on=True):
    return set_adjudication_settings(dataset, auto_majority=on, adjudicators_see_names=False, gold_revealed=False)


def test_turning_auto_majority_on_settles_the_majorities_only(adjudicator):
    answered = wsd_answered([["A", "B", "A"], ["A", "B", "C"], ["D", "D", "D"]])
    with_majority, without, agreed = answered.items
    auto(answered.dataset)
    adjudication = Adjudication.objects.get()
    assert adjudication.item == with_majority
    assert (adjudication.answer, adjudication.source, adjudication.adjudicator) == ({"answer": "A"}, "majority", None)
    assert [r.source for r in adjudication.revisions.all()] == ["majority"]
    assert cases.next_case(adjudicator, answered.dataset.pk) == without.pk
    assert cases.dataset_counts(answered.dataset.pk) == cases.CaseCounts(open=1, settled=1)


def test_the_last_submit_settles_a_majority_and_a_change_settles_it_anew():
    answered = wsd_answered([["A", "B", None]])
    (item,) = answered.items
    auto(answered.dataset)
    assert not Adjudication.objects.exists()  # not ready: one annotator has not answered
    submit(answered.dataset, answered.annotators[2], item, {"answer": "B"})
    assert Adjudication.objects.get().answer == {"answer": "B"}
    submit(answered.dataset, answered.annotators[1], item, {"answer": "A"})
    adjudication = Adjudication.objects.get()
    assert (adjudication.answer, adjudication.version) == ({"answer": "A"}, 2)
    assert cases.dataset_counts(answered.dataset.pk) == cases.CaseCounts(settled=1)


def test_freezing_settles_the_majorities_of_answered_items():
    answered = wsd_answered([["C", "D", "C", None]])
    answered.dataset.auto_majority = True
    answered.dataset.save()
    set_frozen(answered.dataset, True)
    assert Adjudication.objects.get().answer == {"answer": "C"}


def test_an_adjudicators_decision_is_not_overwritten_by_the_majority(adjudicator):
    answered = wsd_answered([["A", "B", "A"]])
    (item,) = answered.items
    adjudicating.save_decision(item=item, adjudicator=adjudicator, source="edited", answer={"answer": "D"},
                               based_on_version=0)
    auto(answered.dataset)
    assert Adjudication.objects.get().answer == {"answer": "D"}


def test_the_majority_key_takes_the_majority(adjudicator):
    answered = wsd_answered([["B", "B", "A"]])
    adjudication = adjudicating.save_decision(item=answered.items[0], adjudicator=adjudicator, source="majority",
                                              based_on_version=0)
    assert (adjudication.answer, adjudication.source) == ({"answer": "B"}, "majority")


def test_adjudicated_answers_take_the_common_answer_of_agreed_items(adjudicator):
    answered = wsd_answered([["A", "B"], ["C", "C"], ["D", None]])
    disagreement, agreed, _incomplete = answered.items
    adjudicating.save_decision(item=disagreement, adjudicator=adjudicator, source="edited", answer={"answer": "B"},
                               based_on_version=0)
    assert cases.adjudicated_answers(answered.dataset) == {disagreement.pk: {"answer": "B"}, agreed.pk: {"answer": "C"}}


def test_who_adjudicated_in_a_dataset_cannot_be_assigned_there(adjudicator):
    answered = wsd_answered([["A", "B"]])
    adjudicating.save_decision(item=answered.items[0], adjudicator=adjudicator, source="edited",
                               answer={"answer": "B"}, based_on_version=0)
    adjudicator.groups.add(person("annotator").groups.get())
    adjudicator = type(adjudicator).objects.get(pk=adjudicator.pk)
    with pytest.raises(Refused, match="adjudicated"):
        assign(answered.dataset, [adjudicator], 1)
    record = {"id": "x", "reference_sentence": "a [[TARGET]]b[[/TARGET]]",
              "candidates": {k: "[[TARGET]]b[[/TARGET]]" for k in "ABCD"}}
    other = make_dataset("wsd", [record], name="wsd-adjudication-other")
    assert assign(other, [adjudicator], 1).total_added == 1


def test_differences_in_each_subtasks_terms():
    choice = differences("coreference", {"candidates": {k: k for k in "ABCD"}},
                         [("Annotator 1", {"answer": "A"}), ("Annotator 2", {"answer": "C"}), ("Annotator 3", {"answer": "A"})])
    assert [(t.value, t.count) for t in choice.details["tallies"]] == [("A", 2), ("B", 0), ("C", 1), ("D", 0)]
    forms = differences("numerals", {}, [("1", {"answer": "dwóch"}), ("2", {"answer": "dwu"}), ("3", {"answer": "dwóch"})])
    assert [(t.value, t.labels) for t in forms.details["tallies"]] == [("dwóch", ["1", "3"]), ("dwu", ["2"])]
    commas = differences("commas", {"sentence_with_positions": "A [1] b [2] c [3] d."},
                         [("1", {"commas": [1], "optional": [3]}), ("2", {"commas": [1, 2], "optional": []})])
    assert commas.details["differing"] == {2, 3}


def test_a_withdrawn_item_leaves_agreement_and_is_listed_there(client):
    from annotation.datasets.organizing import withdraw_item
    from annotation.results.agreement import agreement_report

    answered = wsd_answered([["A", "B"], ["C", "C"], ["D", "D"]])
    organizer = person("organizer")
    assert agreement_report(answered.dataset).figures["n_items"] == 3
    withdraw_item(answered.items[0], organizer, "Zepsute zdanie.")
    report = agreement_report(answered.dataset)
    assert report.figures["n_items"] == 2 and report.withdrawn == [answered.items[0]]
    client.force_login(organizer)
    body = client.get(f"/api/datasets/{answered.dataset.pk}/agreement/").json()
    assert body["withdrawn"] == [answered.items[0].external_id]
    assert cases.adjudicated_answers(answered.dataset) == {
        answered.items[1].pk: {"answer": "C"}, answered.items[2].pk: {"answer": "D"}
    }


def test_a_withdrawn_item_leaves_the_export_and_is_listed_there():
    from annotation.datasets.organizing import withdraw_item
    from annotation.results.exporting import build_submission

    answered = wsd_answered([["A", "B"], ["C", None]])
    withdraw_item(answered.items[0], person("organizer"), "Zepsute.")
    submission = build_submission(answered.dataset, answered.annotators[1])
    assert [line["id"] for line in submission.lines] == []
    assert submission.unanswered == [answered.items[1].external_id]
    assert submission.withdrawn == [answered.items[0].external_id]
