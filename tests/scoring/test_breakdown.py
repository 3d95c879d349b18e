"""The report's per-subtask figures on hand-made lines (scoring.breakdown)."""

from scoring.breakdown import breakdown


def test_commas_by_number_of_gold_commas_and_required_precision_recall():
    gold = [
        {"id": "a", "commas": [], "optional": []},
        {"id": "b", "commas": [1], "optional": []},
        {"id": "c", "commas": [1, 2], "optional": []},
        {"id": "d", "commas": [1, 2, 3, 4], "optional": [4]},
        {"id": "e", "commas": [2, 3, 5], "optional": []},
    ]
    pred = {
        "a": {"id": "a", "commas": [], "optional": []},
        "b": {"id": "b", "commas": [2], "optional": []},
        "c": {"id": "c", "commas": [1, 2], "optional": []},
        "d": {"id": "d", "commas": [1, 2, 3, 4], "optional": []},
    }  # e not answered
    figures = breakdown("commas", gold, pred)
    assert figures["by_gold_commas"] == [
        {"gold_commas": "0", "n_items": 1, "exact_set_accuracy": 1.0},
        {"gold_commas": "1", "n_items": 1, "exact_set_accuracy": 0.0},
        {"gold_commas": "2", "n_items": 1, "exact_set_accuracy": 1.0},
        {"gold_commas": "3+", "n_items": 2, "exact_set_accuracy": 0.5},
    ]
    # predicted 7 commas, 6 of them gold; gold holds 10 commas.
    assert figures["required_precision"] == 6 / 7
    assert figures["required_recall"] == 6 / 10


def test_morphosyntax_correction_accuracy_counts_items_both_call_incorrect():
    gold = [
        {"id": "1", "answer": "NIEPOPRAWNE", "corrected_sentence": "Dobre zdanie.", "accepted_corrections": []},
        {"id": "2", "answer": "NIEPOPRAWNE", "corrected_sentence": "Inne zdanie.", "accepted_corrections": []},
        {"id": "3", "answer": "NIEPOPRAWNE", "corrected_sentence": "Trzecie zdanie.", "accepted_corrections": []},
        {"id": "4", "answer": "POPRAWNE", "corrected_sentence": "", "accepted_corrections": []},
    ]
    pred = {
        "1": {"id": "1", "answer": "NIEPOPRAWNE", "corrected_sentence": "Dobre  zdanie."},  # normalised: accepted
        "2": {"id": "2", "answer": "NIEPOPRAWNE", "corrected_sentence": "Złe zdanie."},
        "3": {"id": "3", "answer": "POPRAWNE", "corrected_sentence": ""},  # label wrong: not counted
        "4": {"id": "4", "answer": "POPRAWNE", "corrected_sentence": ""},
    }
    figures = breakdown("morphosyntax", gold, pred)
    assert figures == {"label_accuracy": 0.75, "correction_accuracy": 0.5, "n_both_incorrect": 2}


def test_discourse_relation_confusions_only_where_the_head_is_right():
    def unit(du_id, head, relation):
        return {"du_id": du_id, "head": head, "relation": relation}

    gold = [{"id": "p", "discourse_units": [unit("1", None, None), unit("2", "1", "Elaboration"),
                                             unit("3", "1", "Contrast"), unit("4", "3", "Cause")]}]
    pred = {"p": {"id": "p", "discourse_units": [unit("1", None, None), unit("2", "1", "Contrast"),
                                                  unit("3", "2", "Elaboration"), unit("4", "3", "Contrast")]}}
    figures = breakdown("discourse", gold, pred)
    assert figures["relation_confusions"] == [
        {"gold": "Cause", "predicted": "Contrast", "count": 1},
        {"gold": "Elaboration", "predicted": "Contrast", "count": 1},
    ]
    assert (figures["las"], figures["uas"]) == (0.0, 2 / 3)
