"""Rules for people (annotation.subtasks.rules): applied by the save service for the page and the API
alike, never by the scorer; and the subtask titles, the scorer's, in Polish."""

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from annotation.models import Annotation, Dataset
from annotation.subtasks.rules import rule_caution, rule_refusals
from scoring.subtasks import SUBTASKS
from scoring.validation import answer_problems
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import AssignedItem

NUMERAL_ITEM = {"id": "n1", "sentence": "Przez miesiąc firma odmówiła tylko [[20]] osobom."}
MORPHOSYNTAX_ITEM = {"id": "m1", "sentence": "Ala ma kota."}


def test_answers_the_rules_refuse_are_valid_for_the_scorer():
    assert rule_refusals("numerals", {"answer": "20"}, NUMERAL_ITEM)
    assert answer_problems("numerals", {"answer": "20"}, NUMERAL_ITEM) == []
    unchanged = {"answer": "NIEPOPRAWNE", "corrected_sentence": "Ala  ma kota. "}
    assert rule_refusals("morphosyntax", unchanged, MORPHOSYNTAX_ITEM)
    assert answer_problems("morphosyntax", unchanged, MORPHOSYNTAX_ITEM) == []


def test_a_subtask_without_rules_refuses_nothing():
    assert rule_refusals("wsd", {"answer": "A"}, {}) == []
    assert rule_refusals("a-subtask-added-later", {"anything": 1}, {}) == []


def numerals_item(username: str) -> AssignedItem:
    """The numerals item assigned to a new annotator (named, so the factories' counter of
    names is left alone: the names seed the assignment order other tests check)."""
    annotator = make_user("annotator", username=username)
    dataset = make_dataset("numerals", [NUMERAL_ITEM], name=f"rules-{username}")
    assign_in_order(dataset, annotator)
    return AssignedItem(annotator, dataset.items.get(), reverse("annotate_item", args=[dataset.pk, 1]))


@pytest.mark.django_db
def test_the_page_applies_the_rules():
    page = numerals_item("rules-page")
    response = page.submit(page.client(), {"answer": "dwadzieścia 1"})
    assert response.status_code == 422
    assert "may not contain digits" in response.content.decode()
    assert page.stored() is None


@pytest.mark.django_db
def test_the_api_applies_the_rules():
    page = numerals_item("rules-api")
    client = APIClient()
    client.force_authenticate(page.annotator)
    item = page.item
    response = client.post(reverse("api_annotations"),
                           {"item": item.pk, "answer": {"answer": "20"}, "status": "submitted", "version": 0},
                           format="json")
    assert response.status_code >= 400
    assert any("may not contain digits" in problem for problem in response.json()["problems"])
    assert not Annotation.objects.exists()
    draft = client.post(reverse("api_annotations"),
                        {"item": item.pk, "answer": {"answer": "20"}, "status": "draft", "version": 0}, format="json")
    assert draft.status_code == 201  # a draft may still be unfinished


@pytest.mark.parametrize("key", list(SUBTASKS))
def test_every_subtask_title_reads_in_polish(key):
    dataset = Dataset(subtask=key)
    with translation.override("en"):
        assert dataset.subtask_title == SUBTASKS[key].title
    with translation.override("pl"):
        assert dataset.subtask_title != SUBTASKS[key].title


def test_a_rule_and_a_caution_carry_the_template_and_parameters_of_their_subtask_s_table():
    """Made from the subtask's own MESSAGES (annotation/subtasks/<key>/answers.py), in the
    request's language; the code names the kind (a rule, a caution) whatever the subtask."""
    with translation.override("pl"):
        digits, brackets = rule_refusals("numerals", {"answer": "[[20]]"}, NUMERAL_ITEM)
        asked = rule_caution("numerals", {"answer": "dwadziestu"}, NUMERAL_ITEM)
    assert [(digits.code, digits.template), (brackets.code, brackets.template)] == [
        ("answer_rule", "answer_rule/digits"), ("answer_rule", "answer_rule/target_brackets")]
    assert digits.message == "Zapisz liczbę słownie: odpowiedź nie może zawierać cyfr."
    said = asked.problem
    assert (said.code, said.template, said.params["unknown_words"], said.params["count"]) == (
        "caution", "caution/unknown_words", ["dwadziestu"], 1)
    assert "„dwadziestu”" in said.message and said.message.startswith("Słownik")
    with translation.override("en"):
        [unchanged] = rule_refusals("morphosyntax", {"answer": "NIEPOPRAWNE", "corrected_sentence": "Ala ma kota."},
                                    MORPHOSYNTAX_ITEM)
    assert (unchanged.code, unchanged.template) == ("answer_rule", "answer_rule/unchanged_correction")
    assert unchanged.message.startswith("The correction is the same as the original sentence")
