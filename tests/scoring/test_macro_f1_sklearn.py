"""The wsd/coreference macro-F1 equals scikit-learn's (a test-only dependency) on random data."""

import random

import pytest
from sklearn.metrics import f1_score

from scoring.subtasks import get_subtask

MISSING = "<missing>"
label_metrics = get_subtask("wsd").metric


@pytest.mark.parametrize("seed", range(40))
def test_macro_f1_equals_sklearn(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    gold_labels = rng.sample("ABCD", rng.randint(1, 4))  # some labels may be absent from gold
    gold = [{"id": str(index), "answer": rng.choice(gold_labels)} for index in range(n)]
    pred, sklearn_pred = {}, []
    for record in gold:
        roll = rng.random()
        if roll < 0.1:
            sklearn_pred.append(MISSING)
            continue
        label = rng.choice(["A", "B", "C", "D", "E", "a", ""]) if roll < 0.2 else rng.choice("ABCD")
        pred[record["id"]] = {"id": record["id"], "answer": label}
        sklearn_pred.append(label if label in "ABCD" and label else MISSING)
    expected = f1_score([record["answer"] for record in gold], sklearn_pred, labels=["A", "B", "C", "D"],
                        average="macro", zero_division=0)
    assert label_metrics(gold, pred)["macro_f1"] == pytest.approx(expected, abs=1e-12)


def test_absent_label_agrees_with_sklearn():
    gold = ["A", "A", "B"]
    assert f1_score(gold, gold, labels=["A", "B", "C", "D"], average="macro", zero_division=0) == 0.5
    records = [{"id": str(index), "answer": label} for index, label in enumerate(gold)]
    assert label_metrics(records, {record["id"]: record for record in records})["macro_f1"] == 0.5
