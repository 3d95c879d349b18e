"""The metric of each subtask.

Every metric takes the gold records (each with its ``id``) and the predictions as a
mapping id -> submission record, and returns a dict whose ``score`` is the main
metric as a fraction 0..1, with the secondary metrics, ``n_gold`` and ``n_missing``.

Predictions are scored as they are: a gold item with no prediction counts as wrong
(and in ``n_missing``); a malformed answer (a label outside A-D, a non-list of
markers, an invalid tree...) counts as wrong, except that a discourse answer that is
not a valid tree still earns credit for each correct attachment. Ratios with a zero
denominator are 0, as scikit-learn's ``zero_division=0``.
"""

from __future__ import annotations

from scoring.discourse import tree_problems
from scoring.normalise import (
    clean_text,
    fold_numeral,
    normalise_morphosyntax,
    normalise_numerals,
)

LABELS = ("A", "B", "C", "D")


def _ratio(numerator: int | float, denominator: int | float) -> float:
    return numerator / denominator if denominator else 0.0


def _prf(true_positives: int, n_predicted: int, n_gold: int) -> dict[str, float]:
    """Precision, recall and F1 from counts; F1 = 2TP / (predicted + gold), as scikit-learn."""
    return {
        "precision": _ratio(true_positives, n_predicted),
        "recall": _ratio(true_positives, n_gold),
        "f1": _ratio(2 * true_positives, n_predicted + n_gold),
    }


def _marker_set(value: object) -> set[int] | None:
    """The set of marker indices, or None when ``value`` is not a list of integers."""
    if not isinstance(value, list) or not all(isinstance(index, int) and not isinstance(index, bool) for index in value):
        return None
    return set(value)


def commas_metrics(gold: list[dict], pred: dict[str, dict]) -> dict:
    """Exact-set accuracy on ``commas`` (main); micro P/R/F1 over (item, position) pairs;
    lenient exact-set accuracy, where gold-optional positions are ignored on both sides.
    An empty gold set is matched by an empty prediction."""
    exact = lenient = true_positives = n_predicted = n_gold_positions = n_missing = 0
    for record in gold:
        gold_commas, gold_optional = set(record["commas"]), set(record["optional"])
        n_gold_positions += len(gold_commas)
        answer = pred.get(record["id"])
        if answer is None:
            n_missing += 1
            continue
        predicted = _marker_set(answer.get("commas"))
        if predicted is None:
            continue
        exact += predicted == gold_commas
        lenient += predicted - gold_optional == gold_commas - gold_optional
        true_positives += len(predicted & gold_commas)
        n_predicted += len(predicted)
    micro = _prf(true_positives, n_predicted, n_gold_positions)
    return {
        "score": _ratio(exact, len(gold)),
        "exact_set_accuracy": _ratio(exact, len(gold)),
        "lenient_exact_set_accuracy": _ratio(lenient, len(gold)),
        "micro_precision": micro["precision"],
        "micro_recall": micro["recall"],
        "micro_f1": micro["f1"],
        "n_gold": len(gold),
        "n_missing": n_missing,
    }


def morphosyntax_metrics(gold: list[dict], pred: dict[str, dict]) -> dict:
    """Full-task accuracy (main): the label equals gold and the corrected sentence equals
    the gold one (or one of ``accepted_corrections``) after normalisation; for a POPRAWNE
    gold it must be empty. Secondary: label accuracy, precision/recall of NIEPOPRAWNE."""
    full = labels_right = true_positives = n_predicted_wrong = n_gold_wrong = n_missing = 0
    for record in gold:
        gold_label = record["answer"]
        n_gold_wrong += gold_label == "NIEPOPRAWNE"
        answer = pred.get(record["id"])
        if answer is None:
            n_missing += 1
            continue
        answer = normalise_morphosyntax(answer)
        label = answer.get("answer")
        n_predicted_wrong += label == "NIEPOPRAWNE"
        if label != gold_label:
            continue
        labels_right += 1
        true_positives += label == "NIEPOPRAWNE"
        correction = answer.get("corrected_sentence")
        if not isinstance(correction, str):
            continue
        if gold_label == "POPRAWNE":
            full += correction == ""
        else:
            accepted = {clean_text(record["corrected_sentence"])}
            accepted.update(clean_text(text) for text in record.get("accepted_corrections", ()))
            full += correction in accepted
    prf = _prf(true_positives, n_predicted_wrong, n_gold_wrong)
    return {
        "score": _ratio(full, len(gold)),
        "full_task_accuracy": _ratio(full, len(gold)),
        "label_accuracy": _ratio(labels_right, len(gold)),
        "niepoprawne_precision": prf["precision"],
        "niepoprawne_recall": prf["recall"],
        "n_gold": len(gold),
        "n_missing": n_missing,
    }


def numerals_metrics(gold: list[dict], pred: dict[str, dict]) -> dict:
    """Exact match (main): the answer, normalised (NFC, lower case, white space collapsed,
    stripped), equals one of the gold ``answers`` normalised the same way."""
    matched = n_missing = 0
    for record in gold:
        answer = pred.get(record["id"])
        if answer is None:
            n_missing += 1
            continue
        written = normalise_numerals(answer).get("answer")
        if isinstance(written, str):
            matched += written in {fold_numeral(form) for form in record["answers"]}
    return {
        "score": _ratio(matched, len(gold)),
        "exact_match": _ratio(matched, len(gold)),
        "n_gold": len(gold),
        "n_missing": n_missing,
    }


def label_metrics(gold: list[dict], pred: dict[str, dict]) -> dict:
    """wsd and coreference: macro-F1 over A, B, C, D (main), accuracy, per-label P/R/F1.

    Equal to scikit-learn's ``f1_score(gold, pred, labels=["A", "B", "C", "D"],
    average="macro", zero_division=0)`` where a missing or invalid prediction is a
    label outside A-D: it is a false negative of its gold label and a false positive
    of nothing. The mean is always over all four labels, so a label that occurs
    neither in gold nor in the predictions has F1 = 0 and pulls the mean down: with
    gold and predictions all "A" and all right, macro-F1 is 0.25, not 1.
    """
    counts = {label: {"tp": 0, "fp": 0, "fn": 0} for label in LABELS}
    correct = n_missing = n_invalid = 0
    for record in gold:
        gold_label = record["answer"]
        answer = pred.get(record["id"])
        if answer is None:
            n_missing += 1
            predicted = None
        else:
            predicted = answer.get("answer")
            if predicted not in counts:
                n_invalid += 1
                predicted = None
        if predicted == gold_label:
            correct += 1
            counts[gold_label]["tp"] += 1
            continue
        if gold_label in counts:
            counts[gold_label]["fn"] += 1
        if predicted is not None:
            counts[predicted]["fp"] += 1
    per_label = {
        label: _prf(c["tp"], c["tp"] + c["fp"], c["tp"] + c["fn"]) | {"support": c["tp"] + c["fn"]}
        for label, c in counts.items()
    }
    macro_f1 = sum(figures["f1"] for figures in per_label.values()) / len(LABELS)
    return {
        "score": macro_f1,
        "macro_f1": macro_f1,
        "accuracy": _ratio(correct, len(gold)),
        "per_label": per_label,
        "n_gold": len(gold),
        "n_missing": n_missing,
        "n_invalid": n_invalid,
    }


def discourse_metrics(gold: list[dict], pred: dict[str, dict]) -> dict:
    """Over all passages: LAS (main) = non-root gold DUs whose predicted head and relation
    both match / all non-root gold DUs; UAS the same for heads alone; root accuracy =
    share of passages whose prediction has exactly one root and it is the gold root;
    tree validity = share of passages whose prediction is a valid tree
    (``scoring.discourse.tree_problems`` finds nothing). An invalid tree still earns
    credit for each correct attachment; when a DU is given twice, its first entry counts."""
    labelled = unlabelled = attachments = roots_right = valid = n_missing = 0
    for record in gold:
        gold_units = record["discourse_units"]
        dependents = [unit for unit in gold_units if unit["head"] is not None]
        attachments += len(dependents)
        answer = pred.get(record["id"])
        if answer is None:
            n_missing += 1
            continue
        units = answer.get("discourse_units")
        units = units if isinstance(units, list) else []
        predicted: dict[object, dict] = {}
        for unit in units:
            if isinstance(unit, dict):
                predicted.setdefault(unit.get("du_id"), unit)
        for unit in dependents:
            guess = predicted.get(unit["du_id"])
            if guess is not None and guess.get("head") == unit["head"]:
                unlabelled += 1
                labelled += guess.get("relation") == unit["relation"]
        gold_roots = [unit["du_id"] for unit in gold_units if unit["head"] is None]
        predicted_roots = [du_id for du_id, unit in predicted.items() if "head" in unit and unit["head"] is None]
        roots_right += predicted_roots == gold_roots and len(gold_roots) == 1
        valid += not tree_problems([unit["du_id"] for unit in gold_units], units)
    return {
        "score": _ratio(labelled, attachments),
        "las": _ratio(labelled, attachments),
        "uas": _ratio(unlabelled, attachments),
        "root_accuracy": _ratio(roots_right, len(gold)),
        "tree_validity": _ratio(valid, len(gold)),
        "n_attachments": attachments,
        "n_gold": len(gold),
        "n_missing": n_missing,
    }
