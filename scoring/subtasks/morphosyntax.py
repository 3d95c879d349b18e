"""Subtask 1, morphosyntax: is the sentence correct (POPRAWNE), or incorrect (NIEPOPRAWNE) with a correction?"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from scoring.metrics import combined, prf, ratio
from scoring.problems import Problem, problem
from scoring.reliability import AnswerTable, Figures, Undefined, majority_by_value, nominal_alpha, strict_majority
from scoring.text import clean_text

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

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
        return [problem("correction_for_correct", "corrected_sentence", label=CORRECT)]
    if answer["answer"] == INCORRECT and not correction:
        return [problem("missing_correction", "corrected_sentence", label=INCORRECT)]
    return []


def normalise(answer: dict) -> dict:
    result = dict(answer)
    if isinstance(result.get("corrected_sentence"), str):
        result["corrected_sentence"] = clean_text(result["corrected_sentence"])
    return result


# Metric: full-task accuracy (main): the label equals gold and the corrected sentence equals
# the gold one (or one of ``accepted_corrections``) after normalisation; for a POPRAWNE gold
# it must be empty. Secondary: label accuracy, precision/recall of NIEPOPRAWNE.
# An answer is right when the task is done in full (see ITEM_FIGURE in the registry).
ITEM_FIGURE = "full_task_accuracy"
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


# Agreement: nominal alpha on the label; correction agreement over all unordered pairs of
# answers to the same item that both say NIEPOPRAWNE, pooled over items: the share whose
# normalised corrections are equal. The majority answer is the (label, normalised correction)
# more than half of the answers give.

def answer_value(answer: dict) -> tuple[str, str]:
    return answer["answer"], answer["corrected_sentence"]


def agreement_figures(table: AnswerTable, figures: Figures) -> None:
    answered = table.answered
    figures.add("label_alpha", lambda: nominal_alpha(Counter(answer["answer"] for answer in answers) for _, answers in answered))
    pairs = equal_pairs = 0
    for _, answers in answered:
        corrections = Counter(answer["corrected_sentence"] for answer in answers if answer["answer"] == INCORRECT)
        given = sum(corrections.values())
        pairs += given * (given - 1) // 2
        equal_pairs += sum(count * (count - 1) // 2 for count in corrections.values())

    def correction_agreement() -> float:
        if not pairs:
            raise Undefined(f"no two valid answers to the same item both say {INCORRECT}")
        return equal_pairs / pairs

    figures.add("correction_agreement", correction_agreement)
    figures.add("correction_agreement_n_pairs", lambda: pairs)


def majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    return majority_by_value(answers, answer_value)


def breakdown(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    column = {name: index for index, name in enumerate(subtask.count_names)}
    # "true_positives": gold and prediction both NIEPOPRAWNE; "full": the correction is accepted too.
    both_incorrect = sum(row[column["true_positives"]] for row in rows)
    corrected = sum(row[column["full"]] for row in rows if row[column["true_positives"]])
    return {
        "label_accuracy": combined(subtask, rows)["label_accuracy"],
        "correction_accuracy": ratio(corrected, both_incorrect),
        "n_both_incorrect": both_incorrect,
    }


def disagreement_kinds(answers: list[dict], item: dict) -> list[str]:
    kinds = []
    if len({answer["answer"] for answer in answers}) > 1:
        kinds.append(f"{CORRECT}/{INCORRECT}")
    corrections = {answer["corrected_sentence"] for answer in answers if answer["answer"] == INCORRECT}
    if len(corrections) > 1:
        kinds.append("correction")
    return kinds


# Dawid–Skene (scoring.dawid_skene): one unit per item, its class the label; the correction of a
# NIEPOPRAWNE item is the one more than half of the answers saying NIEPOPRAWNE give, else none.
NO_MAJORITY_CORRECTION = "no majority correction"


def dawid_skene_units(answer: dict, item: dict) -> tuple[str]:
    return (answer["answer"],)


def dawid_skene_answer(classes: tuple[str, ...], answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    (label,) = classes
    if label == CORRECT:
        return {"answer": CORRECT, "corrected_sentence": ""}, None
    corrections = [answer["corrected_sentence"] for answer in answers if answer["answer"] == INCORRECT]
    correction = strict_majority(corrections) if corrections else None
    if correction is None:
        return None, NO_MAJORITY_CORRECTION
    return {"answer": INCORRECT, "corrected_sentence": correction}, None
