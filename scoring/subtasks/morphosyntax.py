"""Subtask 1, morphosyntax: is the sentence correct (POPRAWNE), or incorrect (NIEPOPRAWNE) with a correction?"""

from __future__ import annotations

from scoring.metrics import prf, ratio
from scoring.problems import Problem
from scoring.text import clean_text

NUMBER = 1
TITLE = "Morphosyntactic error detection and correction"
ANSWER_FIELDS = ("answer", "corrected_sentence")

CORRECT = "POPRAWNE"
INCORRECT = "NIEPOPRAWNE"
LABELS = (CORRECT, INCORRECT)


def check_input(record: dict) -> list[Problem]:
    """The schema says it all."""
    return []


def check_answer(answer: dict, item: dict | None) -> list[Problem]:
    correction = answer["corrected_sentence"].strip()
    if answer["answer"] == CORRECT and correction:
        return [Problem("corrected_sentence", f"must be empty for {CORRECT}", "correction_for_correct")]
    if answer["answer"] == INCORRECT and not correction:
        return [Problem("corrected_sentence", f"must hold the full corrected sentence for {INCORRECT}", "missing_correction")]
    return []


def normalise(answer: dict) -> dict:
    result = dict(answer)
    if isinstance(result.get("corrected_sentence"), str):
        result["corrected_sentence"] = clean_text(result["corrected_sentence"])
    return result


# Metric: full-task accuracy (main): the label equals gold and the corrected sentence equals
# the gold one (or one of ``accepted_corrections``) after normalisation; for a POPRAWNE gold
# it must be empty. Secondary: label accuracy, precision/recall of NIEPOPRAWNE.
COUNT_NAMES = ("full", "label_right", "true_positives", "predicted_incorrect", "gold_incorrect", "missing")


def line_counts(gold: dict, prediction: dict | None) -> tuple[int, ...]:
    gold_label = gold["answer"]
    gold_incorrect = int(gold_label == INCORRECT)
    if prediction is None:
        return (0, 0, 0, 0, gold_incorrect, 1)
    answer = normalise(prediction)
    label = answer.get("answer")
    predicted_incorrect = int(label == INCORRECT)
    if label != gold_label:
        return (0, 0, 0, predicted_incorrect, gold_incorrect, 0)
    correction = answer.get("corrected_sentence")
    if not isinstance(correction, str):
        full = False
    elif gold_label == CORRECT:
        full = correction == ""
    else:
        accepted = {clean_text(gold["corrected_sentence"])}
        accepted.update(clean_text(text) for text in gold.get("accepted_corrections", ()))
        full = correction in accepted
    return (int(full), 1, predicted_incorrect, predicted_incorrect, gold_incorrect, 0)


def combine(totals: tuple[int, ...], n_lines: int) -> dict:
    full, label_right, true_positives, predicted_incorrect, gold_incorrect, missing = totals
    figures = prf(true_positives, predicted_incorrect, gold_incorrect)
    return {
        "score": ratio(full, n_lines),
        "full_task_accuracy": ratio(full, n_lines),
        "label_accuracy": ratio(label_right, n_lines),
        "niepoprawne_precision": figures["precision"],
        "niepoprawne_recall": figures["recall"],
        "n_gold": n_lines,
        "n_missing": missing,
    }
