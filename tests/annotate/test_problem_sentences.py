"""Refusals on the item page are plain sentences in the annotator's language: no field paths,
no JSON; the API keeps the field and the code."""

import pytest
from django.utils import translation

from annotation.subtasks.problem_texts import PROBLEM_TEXTS, SENTENCES, TREE_PROBLEM_TEXTS, sentence, sentences
from scoring.problems import Problem

FIELD_PATH = ("[", "]", "_", "commas", "optional", "answer:", "discourse_units")


@pytest.mark.parametrize("code", sorted(set(PROBLEM_TEXTS) - set(TREE_PROBLEM_TEXTS)))
def test_every_code_the_scorer_gives_an_answer_is_said_as_a_polish_sentence(code):
    assert code in SENTENCES
    with translation.override("pl"):
        said = sentence(Problem("commas[0]", "English message", code))
    assert said[0].isupper() and said.endswith(".")
    assert not any(mark in said for mark in FIELD_PATH), said
    assert "English message" not in said


def test_the_issue_s_two_messages_read_as_sentences():
    with translation.override("pl"):
        assert sentence(Problem("commas[0]", "expected integer", "type")) == (
            "Część odpowiedzi ma niewłaściwą postać (przecinki wymagane): odśwież stronę i odpowiedz jeszcze raz."
        )
        said = sentence(Problem("answer", "holds U+0000", "unstorable"))
        assert said.startswith("Odpowiedź zawiera znak, którego nie da się zapisać")


def test_tree_problems_are_said_once_and_app_sentences_stay_as_they_are():
    problems = [Problem("discourse_units[1]", "x", "missing_du"), Problem("discourse_units[2]", "x", "missing_du")]
    assert len(sentences(problems)) == 1
    assert sentence(Problem("", "Nothing is chosen or typed yet.")) == "Nothing is chosen or typed yet."
