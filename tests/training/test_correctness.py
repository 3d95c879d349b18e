"""An answer's correctness, by the metric's own counts of its one line (scoring only)."""

import pytest

from scoring.subtasks import get_subtask

DISCOURSE_GOLD = {"id": "p", "discourse_units": [
    {"du_id": "1", "head": None, "relation": None},
    {"du_id": "2", "head": "1", "relation": "Elaboration"},
    {"du_id": "3", "head": "1", "relation": "Contrast"},
    {"du_id": "4", "head": "3", "relation": "Cause"},
]}


@pytest.mark.parametrize(("key", "gold", "answer", "expected"), [
    ("wsd", {"id": "x", "answer": "B"}, {"answer": "B"}, 1.0),
    ("wsd", {"id": "x", "answer": "B"}, {"answer": "C"}, 0.0),
    ("coreference", {"id": "x", "answer": "A"}, {"answer": "A"}, 1.0),
    ("coreference", {"id": "x", "answer": "A"}, None, 0.0),
    ("numerals", {"id": "x", "answers": ["pięciu", "pięć"]}, {"answer": "pięć"}, 1.0),
    ("numerals", {"id": "x", "answers": ["pięciu", "pięć"]}, {"answer": "  Pięciu "}, 1.0),  # the metric's own folding
    ("numerals", {"id": "x", "answers": ["pięciu"]}, {"answer": "pięcioma"}, 0.0),
    ("morphosyntax", {"id": "x", "answer": "NIEPOPRAWNE", "corrected_sentence": "Koty śpią."},
     {"answer": "NIEPOPRAWNE", "corrected_sentence": "Koty śpią."}, 1.0),
    ("morphosyntax", {"id": "x", "answer": "NIEPOPRAWNE", "corrected_sentence": "Koty śpią."},
     {"answer": "NIEPOPRAWNE", "corrected_sentence": "Kot śpią."}, 0.0),  # the label alone is not the full task
    ("commas", {"id": "x", "commas": [1, 3], "optional": [3]}, {"commas": [1, 3]}, 1.0),
    ("commas", {"id": "x", "commas": [1, 3], "optional": [3]}, {"commas": [1]}, 0.0),  # exact set, not lenient
    ("discourse", DISCOURSE_GOLD, {"discourse_units": DISCOURSE_GOLD["discourse_units"]}, 1.0),
    ("discourse", DISCOURSE_GOLD, {"discourse_units": [
        {"du_id": "1", "head": None, "relation": None},
        {"du_id": "2", "head": "1", "relation": "Elaboration"},
        {"du_id": "3", "head": "1", "relation": "Cause"},
        {"du_id": "4", "head": "3", "relation": "Cause"},
    ]}, 2 / 3),  # the passage's LAS
])
def test_correctness_is_exactly_right_by_the_scorer_and_las_for_discourse(key, gold, answer, expected):
    assert get_subtask(key).correctness(gold, answer) == pytest.approx(expected, abs=0)


def test_correctness_agrees_with_the_metric_over_one_line():
    subtask = get_subtask("commas")
    gold = {"id": "x", "commas": [2], "optional": []}
    assert subtask.correctness(gold, {"commas": [2]}) == subtask.metric([gold], {"x": {"id": "x", "commas": [2]}})["exact_set_accuracy"]
