"""Every metric on small cases computed by hand."""

import unicodedata

import pytest

from scoring.subtasks import get_subtask

commas_metrics, discourse_metrics, label_metrics, morphosyntax_metrics, numerals_metrics = (
    get_subtask(key).metric for key in ("commas", "discourse", "wsd", "morphosyntax", "numerals"))


def by_id(*records):
    return {record["id"]: record for record in records}


# commas ------------------------------------------------------------------------------------

def commas_gold():
    return [
        {"id": "c1", "commas": [2, 5], "optional": [3]},
        {"id": "c2", "commas": [], "optional": []},
        {"id": "c3", "commas": [1], "optional": []},
        {"id": "c4", "commas": [4], "optional": []},
    ]


def test_commas_exact_set_micro_and_lenient():
    pred = by_id(
        {"id": "c1", "commas": [2, 3, 5], "optional": []},  # 3 is gold-optional: wrong, but right leniently
        {"id": "c2", "commas": [], "optional": [1]},  # empty set matched
        {"id": "c3", "commas": [2], "optional": []},  # wrong
    )  # c4 missing
    result = commas_metrics(commas_gold(), pred)
    assert result["score"] == result["exact_set_accuracy"] == 1 / 4
    assert result["lenient_exact_set_accuracy"] == 2 / 4
    # gold pairs: 4; predicted pairs: 4; true positives (c1, 2), (c1, 5)
    assert result["micro_precision"] == 2 / 4
    assert result["micro_recall"] == 2 / 4
    assert result["micro_f1"] == 2 / 4
    assert (result["n_gold"], result["n_missing"]) == (4, 1)


def test_commas_compares_sets_and_a_malformed_answer_is_wrong():
    pred = by_id(
        {"id": "c1", "commas": [5, 2, 5], "optional": []},
        {"id": "c2", "commas": "none", "optional": []},
        {"id": "c3", "commas": [True], "optional": []},
        {"id": "c4"},
    )
    result = commas_metrics(commas_gold(), pred)
    assert result["score"] == 1 / 4
    assert result["micro_precision"] == 1.0 and result["micro_recall"] == 2 / 4
    assert result["n_missing"] == 0


def test_commas_all_empty_sets_are_exact_and_micro_figures_are_zero_by_convention():
    gold = [{"id": "a", "commas": [], "optional": []}, {"id": "b", "commas": [], "optional": []}]
    pred = by_id({"id": "a", "commas": [], "optional": []}, {"id": "b", "commas": [], "optional": []})
    result = commas_metrics(gold, pred)
    assert result["score"] == 1.0 and result["lenient_exact_set_accuracy"] == 1.0
    assert result["micro_precision"] == result["micro_recall"] == result["micro_f1"] == 0.0


def test_commas_no_gold_items():
    assert commas_metrics([], {}) == {
        "score": 0.0, "exact_set_accuracy": 0.0, "lenient_exact_set_accuracy": 0.0, "micro_precision": 0.0,
        "micro_recall": 0.0, "micro_f1": 0.0, "n_gold": 0, "n_missing": 0,
    }


# morphosyntax ------------------------------------------------------------------------------

def test_morphosyntax_full_task_label_accuracy_and_niepoprawne_precision_recall():
    nfc = "Zażółć gęślą jaźń."
    gold = [
        {"id": "m1", "answer": "NIEPOPRAWNE", "corrected_sentence": "Ala ma kota."},
        {"id": "m2", "answer": "POPRAWNE", "corrected_sentence": ""},
        {"id": "m3", "answer": "NIEPOPRAWNE", "corrected_sentence": "Psy szczekają.", "accepted_corrections": ["Psy szczekały."]},
        {"id": "m4", "answer": "POPRAWNE", "corrected_sentence": ""},
        {"id": "m5", "answer": "NIEPOPRAWNE", "corrected_sentence": "Kot śpi."},
        {"id": "m6", "answer": "NIEPOPRAWNE", "corrected_sentence": nfc},
        {"id": "m7", "answer": "POPRAWNE", "corrected_sentence": ""},
    ]
    pred = by_id(
        {"id": "m1", "answer": "NIEPOPRAWNE", "corrected_sentence": "  Ala  ma\tkota. "},  # white space normalised
        {"id": "m2", "answer": "POPRAWNE", "corrected_sentence": ""},
        {"id": "m3", "answer": "NIEPOPRAWNE", "corrected_sentence": "Psy szczekały."},  # an accepted correction
        {"id": "m4", "answer": "NIEPOPRAWNE", "corrected_sentence": "Coś."},  # wrong label
        # m5 missing
        {"id": "m6", "answer": "NIEPOPRAWNE", "corrected_sentence": unicodedata.normalize("NFD", nfc)},
        {"id": "m7", "answer": "POPRAWNE", "corrected_sentence": "Coś."},  # POPRAWNE gold needs an empty correction
    )
    result = morphosyntax_metrics(gold, pred)
    assert result["score"] == result["full_task_accuracy"] == 4 / 7
    assert result["label_accuracy"] == 5 / 7
    # gold NIEPOPRAWNE: m1 m3 m5 m6; predicted NIEPOPRAWNE: m1 m3 m4 m6; both: m1 m3 m6
    assert result["niepoprawne_precision"] == 3 / 4
    assert result["niepoprawne_recall"] == 3 / 4
    assert (result["n_gold"], result["n_missing"]) == (7, 1)


def test_morphosyntax_a_wrong_correction_with_the_right_label_is_wrong():
    gold = [{"id": "m", "answer": "NIEPOPRAWNE", "corrected_sentence": "Ala ma kota."}]
    for correction in ("Ala ma kot.", "", None):
        result = morphosyntax_metrics(gold, by_id({"id": "m", "answer": "NIEPOPRAWNE", "corrected_sentence": correction}))
        assert result["score"] == 0.0 and result["label_accuracy"] == 1.0


# numerals ----------------------------------------------------------------------------------

def test_numerals_exact_match_after_normalisation_against_any_accepted_form():
    gold = [
        {"id": "n1", "answers": ["stu dwudziestu"]},
        {"id": "n2", "answers": ["dwa", "Dwóch"]},
        {"id": "n3", "answers": ["pięć"]},
        {"id": "n4", "answers": ["siedem"]},
        {"id": "n5", "answers": ["trzech"]},
    ]
    pred = by_id(
        {"id": "n1", "answer": " Stu \u00a0 DWUDZIESTU\n"},
        {"id": "n2", "answer": "dwóch"},
        {"id": "n3", "answer": "sześć"},
        {"id": "n5", "answer": 3},
    )
    result = numerals_metrics(gold, pred)
    assert result["score"] == result["exact_match"] == 2 / 5
    assert (result["n_gold"], result["n_missing"]) == (5, 1)


# wsd / coreference -------------------------------------------------------------------------

def label_gold(labels):
    return [{"id": str(index), "answer": label} for index, label in enumerate(labels)]


def test_macro_f1_by_hand_with_a_missing_and_an_invalid_prediction():
    gold = label_gold("AABCDD")
    pred = by_id({"id": "0", "answer": "A"}, {"id": "1", "answer": "B"}, {"id": "2", "answer": "B"},
                 {"id": "4", "answer": "X"}, {"id": "5", "answer": "D"})  # 3 missing
    result = label_metrics(gold, pred)
    # A: tp 1, fn 1 -> F1 2/3; B: tp 1, fp 1 -> 2/3; C: fn 1 -> 0; D: tp 1, fn 1 -> 2/3
    assert result["per_label"]["A"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3), "support": 2}
    assert result["per_label"]["B"] == {"precision": 0.5, "recall": 1.0, "f1": pytest.approx(2 / 3), "support": 1}
    assert result["per_label"]["C"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1}
    assert result["score"] == result["macro_f1"] == pytest.approx(0.5)
    assert result["accuracy"] == 3 / 6
    assert (result["n_gold"], result["n_missing"], result["n_invalid"]) == (6, 1, 1)


def test_a_label_absent_from_gold_and_predictions_scores_zero_and_pulls_the_mean_down():
    gold = label_gold("AAB")
    pred = by_id({"id": "0", "answer": "A"}, {"id": "1", "answer": "A"}, {"id": "2", "answer": "B"})
    result = label_metrics(gold, pred)
    assert result["accuracy"] == 1.0
    assert [result["per_label"][label]["f1"] for label in "ABCD"] == [1.0, 1.0, 0.0, 0.0]
    assert result["score"] == 0.5


def test_lower_case_label_is_invalid_not_normalised():
    result = label_metrics(label_gold("A"), by_id({"id": "0", "answer": "a"}))
    assert result["accuracy"] == 0.0 and result["n_invalid"] == 1


# discourse ---------------------------------------------------------------------------------

def du(du_id, head=None, relation=None):
    return {"du_id": du_id, "head": head, "relation": relation}


def discourse_gold(passage_id):
    return {"id": passage_id, "discourse_units": [du("1"), du("2", "1", "Cause"), du("3", "1", "Elaboration"), du("4", "3", "Contrast")]}


def test_discourse_las_uas_root_accuracy_and_tree_validity():
    gold = [discourse_gold(f"p{number}") for number in range(1, 6)]
    pred = by_id(
        # valid tree: 2 right; 3 right head, wrong relation; 4 wrong head -> UAS 2, LAS 1
        {"id": "p1", "discourse_units": [du("1"), du("2", "1", "Cause"), du("3", "1", "Comment"), du("4", "2", "Contrast")]},
        # cycle 2 <-> 3: only 4 is right -> UAS 1, LAS 1; one root, the right one
        {"id": "p2", "discourse_units": [du("1"), du("2", "3", "Cause"), du("3", "2", "Elaboration"), du("4", "3", "Contrast")]},
        # two roots: 3 and 4 right -> UAS 2, LAS 2; root wrong
        {"id": "p3", "discourse_units": [du("1"), du("2"), du("3", "1", "Elaboration"), du("4", "3", "Contrast")]},
        # p4 missing
        # self-attachment, unknown head, duplicate DU (first entry counts): only 4 right
        {"id": "p5", "discourse_units": [du("1"), du("2", "2", "Cause"), du("3", "9", "Elaboration"),
                                         du("4", "3", "Contrast"), du("4", "1", "Cause")]},
    )
    result = discourse_metrics(gold, pred)
    assert result["n_attachments"] == 15
    assert result["uas"] == 6 / 15
    assert result["score"] == result["las"] == 5 / 15
    assert result["root_accuracy"] == 3 / 5
    assert result["tree_validity"] == 1 / 5
    assert (result["n_gold"], result["n_missing"]) == (5, 1)


def test_discourse_malformed_answer_earns_nothing_and_does_not_raise():
    gold = [discourse_gold("p")]
    for answer in ({"id": "p", "discourse_units": "tree"}, {"id": "p", "discourse_units": [1, None, {"du_id": "2"}]}, {"id": "p"}):
        result = discourse_metrics(gold, by_id(answer))
        assert (result["las"], result["uas"], result["tree_validity"]) == (0.0, 0.0, 0.0)


def test_discourse_root_must_be_the_gold_root():
    gold = [discourse_gold("p")]
    pred = by_id({"id": "p", "discourse_units": [du("1", "3", "Cause"), du("2", "1", "Cause"), du("3"), du("4", "3", "Contrast")]})
    result = discourse_metrics(gold, pred)
    assert result["root_accuracy"] == 0.0 and result["tree_validity"] == 1.0
    assert result["uas"] == 2 / 3 and result["las"] == 2 / 3
