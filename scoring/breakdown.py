"""The figures of a report beyond the main and secondary metrics, per subtask.

Every figure the metric already defines is taken from the subtask's own ``metric`` or its
per-line counts (``scoring.metrics.count_rows``, combined on all lines or on a group of them);
what no metric counts (a confusion matrix, relation confusions) is tallied here from the
gold and predicted answers as they are scored. ``breakdown(key, gold, pred)`` returns a dict
of plain values (JSON-ready); ``rows_by_id``, the count rows of ``pred`` by gold id
(``scoring.metrics.count_rows_by_id``), when they are counted already.
"""

from __future__ import annotations

from collections import Counter

from scoring.choice import LABELS
from scoring.metrics import combined, count_rows, ratio
from scoring.subtasks import Subtask, get_subtask

# Columns of a confusion matrix for answers that are no label: not answered, or not A-D.
NO_LABEL = "none"
MACRO_F1_NOTE = (
    "macro-F1 averages the F1 of the four labels A-D, as the benchmark defines it: a label that "
    "neither the gold nor the answers of a (small) scored subset contain has F1 0 and pulls the average down"
)
COMMA_BUCKETS = ("0", "1", "2", "3+")
TOP_RELATION_PAIRS = 10


def _choice(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    labels = list(LABELS)
    confusion = {label: dict.fromkeys([*labels, NO_LABEL], 0) for label in labels}
    for record in gold:
        answer = pred.get(record["id"], {}).get("answer")
        confusion[record["answer"]][answer if answer in labels else NO_LABEL] += 1
    return {
        "per_label": combined(subtask, rows)["per_label"],
        "confusion": {"labels": labels, "columns": [*labels, NO_LABEL], "rows": confusion},
        "note": MACRO_F1_NOTE,
    }


def _comma_bucket(record: dict) -> str:
    return COMMA_BUCKETS[min(len(record["commas"]), len(COMMA_BUCKETS) - 1)]


def _commas(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    buckets = [_comma_bucket(record) for record in gold]
    by_bucket = []
    for bucket in COMMA_BUCKETS:
        group = [row for row_bucket, row in zip(buckets, rows) if row_bucket == bucket]
        by_bucket.append({
            "gold_commas": bucket,
            "n_items": len(group),
            "exact_set_accuracy": combined(subtask, group)["exact_set_accuracy"] if group else None,
        })
    figures = combined(subtask, rows)
    return {
        "by_gold_commas": by_bucket,
        "required_precision": figures["micro_precision"],
        "required_recall": figures["micro_recall"],
    }


def _morphosyntax(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    column = {name: index for index, name in enumerate(subtask.count_names)}
    # "true_positives": gold and prediction both NIEPOPRAWNE; "full": the correction is accepted too.
    both_incorrect = sum(row[column["true_positives"]] for row in rows)
    corrected = sum(row[column["full"]] for row in rows if row[column["true_positives"]])
    return {
        "label_accuracy": combined(subtask, rows)["label_accuracy"],
        "correction_accuracy": ratio(corrected, both_incorrect),
        "n_both_incorrect": both_incorrect,
    }


def _discourse(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    figures = combined(subtask, rows)
    pairs: Counter[tuple[str, str]] = Counter()
    for record in gold:
        units = pred.get(record["id"], {}).get("discourse_units")
        predicted: dict[str, dict] = {}
        for unit in units if isinstance(units, list) else []:
            if isinstance(unit, dict) and isinstance(unit.get("du_id"), str):
                predicted.setdefault(unit["du_id"], unit)  # the first unit of a du_id, as the metric reads it
        for unit in record["discourse_units"]:
            guess = predicted.get(unit["du_id"])
            if unit["head"] is not None and guess is not None and guess.get("head") == unit["head"] \
                    and guess.get("relation") != unit["relation"]:
                pairs[(unit["relation"], str(guess.get("relation")))] += 1
    top = sorted(pairs.items(), key=lambda pair: (-pair[1], pair[0]))[:TOP_RELATION_PAIRS]
    return {
        **{name: figures[name] for name in ("las", "uas", "root_accuracy", "tree_validity")},
        "relation_confusions": [{"gold": gold_relation, "predicted": predicted, "count": count}
                                for (gold_relation, predicted), count in top],
    }


def _numerals(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    return {"exact_match": combined(subtask, rows)["exact_match"]}


PARTS = {"wsd": _choice, "coreference": _choice, "commas": _commas, "morphosyntax": _morphosyntax,
         "discourse": _discourse, "numerals": _numerals}


def breakdown(key: str, gold: list[dict], pred: dict[str, dict],
              rows_by_id: dict[str, tuple[int, ...]] | None = None) -> dict:
    """The per-subtask figures of a report for ``gold`` (the scored gold records) and ``pred``;
    every figure of the metric from the count rows of ``gold``'s lines (``rows_by_id``, or
    counted here once for every figure and group)."""
    subtask = get_subtask(key)
    if rows_by_id is None:
        rows = count_rows(subtask, gold, pred)
    else:
        rows = [rows_by_id[record["id"]] for record in gold]
    return PARTS[key](subtask, gold, pred, rows)
