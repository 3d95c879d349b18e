"""Make the reference outputs of crowd-kit 1.4.2's DawidSkene that tests/scoring/test_dawid_skene.py
compares scoring.dawid_skene with (tests/scoring/fixtures/dawid_skene/).

Run once, in a throwaway virtualenv that has crowd-kit (it is no dependency of the project):

    python3 -m venv /tmp/ck-venv && /tmp/ck-venv/bin/pip install crowd-kit==1.4.2
    /tmp/ck-venv/bin/python scripts/dawid_skene_reference.py [--data /work/shared/data]

The script imports nothing of the project: it makes the answers, maps them to classes itself
(wsd, coreference and morphosyntax: the label; commas: required, optional or none per marker)
and writes, per case, ``<case>.json``: the answer rows (task, annotator, label), and what
crowd-kit fitted: the classes, the iterations, each task's posteriors and label, the priors and
the error matrices. The "real" cases answer real items of the benchmark's dev data (``--data``:
a folder with ``<subtask>/dev.inputs.jsonl`` and ``dev.gold.jsonl``), as three seeded annotators
who answer like the gold but on a share of the items (as the demo raters do), written as the
inputs and submission files the scorer reads (``real-<subtask>/``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import crowdkit
import numpy as np
import pandas as pd
from crowdkit.aggregation import DawidSkene

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "scoring" / "fixtures" / "dawid_skene"

# (name, tasks, annotators, classes, accuracies of the annotators, share of answers missing, seed)
RANDOM_CASES = [
    ("random-binary", 200, 3, ["NIEPOPRAWNE", "POPRAWNE"], [0.9, 0.75, 0.6], 0.0, 1),
    ("random-four", 300, 5, ["A", "B", "C", "D"], [0.85, 0.7, 0.55, 0.4, 0.3], 0.2, 2),
    ("random-markers", 500, 3, ["none", "optional", "required"], [0.95, 0.8, 0.5], 0.1, 3),
    ("random-sparse", 120, 8, ["A", "B", "C", "D"], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.25], 0.7, 4),
    ("random-two-annotators", 80, 2, ["A", "B"], [0.7, 0.7], 0.0, 5),
]

# Ties: the answers are symmetric in the two classes (swapping B and A gives the same answers),
# so the tasks answered A by one annotator and B by the other have two equal posteriors.
TIED_ROWS = [(f"t{task}", worker, label) for task, answers in enumerate(
    [("B", "A"), ("A", "B"), ("B", "B"), ("A", "A"), ("B", "A"), ("A", "B"), ("B", "B"), ("A", "A"), ("B", "B"),
     ("A", "A")]) for worker, label in zip(("w0", "w1"), answers)]

REAL_SUBTASKS = {"wsd": 36, "coreference": 160, "morphosyntax": 319, "commas": 300}  # items taken (the first)

SLIP_RATE = 0.2
SKIP_RATE = 0.05


def crowd_kit_fit(rows: list[tuple[str, str, str]]) -> dict:
    """crowd-kit's fit, its classes put in sorted order. crowd-kit's own order of the classes
    (the columns of its majority vote, which depend on the pandas version: by count under
    pandas 3) decides its ties (``idxmax``); the tasks whose highest posterior is shared are
    listed in ``ties``, where the issue's rule (the first class in sorted order) applies."""
    data = pd.DataFrame(rows, columns=["task", "worker", "label"])
    model = DawidSkene(n_iter=100, tol=1e-5).fit(data)
    own_order = [str(label) for label in model.probas_.columns]
    classes = sorted(model.probas_.columns)
    probas = model.probas_.sort_index()[classes]
    values = probas.to_numpy()
    ties = [str(task) for task, row in zip(probas.index, values) if (row == row.max()).sum() > 1]
    errors = model.errors_[classes]
    return {
        "classes": [str(label) for label in classes],
        "crowd_kit_class_order": own_order,
        "iterations": len(model.loss_history_),
        "loss_history": [float(loss) for loss in model.loss_history_],
        "tasks": [str(task) for task in probas.index],
        "posteriors": values.tolist(),
        "labels": [str(model.labels_[task]) for task in probas.index],
        "ties": ties,
        "priors": [float(model.priors_[label]) for label in classes],
        "errors": [[str(worker), str(label), [float(value) for value in errors.loc[(worker, label)]]]
                   for worker, label in sorted(errors.index)],
    }


def random_rows(tasks: int, annotators: int, classes: list[str], accuracies: list[float], missing: float,
                seed: int) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    rows = []
    for task in range(tasks):
        truth = int(rng.integers(len(classes)))
        given = [worker for worker in range(annotators) if rng.random() >= missing] or [int(rng.integers(annotators))]
        for worker in given:
            label = truth if rng.random() < accuracies[worker] else int(rng.integers(len(classes)))
            rows.append((f"t{task:04d}", f"w{worker}", classes[label]))
    return rows


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def marker_count(item: dict) -> int:
    return len(re.findall(r"\[[0-9]+\]", item["sentence_with_positions"]))


def slipped(subtask: str, item: dict, gold: dict, rng: random.Random) -> dict:
    """The gold answer, or on a share of the items a slip people make."""
    if subtask in ("wsd", "coreference"):
        answer = {"answer": gold["answer"]}
        if rng.random() < SLIP_RATE:
            answer["answer"] = rng.choice([label for label in "ABCD" if label != gold["answer"]])
        return answer
    if subtask == "morphosyntax":
        answer = {"answer": gold["answer"], "corrected_sentence": gold["corrected_sentence"]}
        if rng.random() < SLIP_RATE:
            if gold["answer"] == "POPRAWNE":
                answer = {"answer": "NIEPOPRAWNE", "corrected_sentence": item["sentence"] + "!"}
            elif rng.random() < 0.5:
                answer = {"answer": "POPRAWNE", "corrected_sentence": ""}
            else:
                answer["corrected_sentence"] = gold["corrected_sentence"] + " ."
        return answer
    commas, optional = set(gold["commas"]), set(gold["optional"])
    if rng.random() < SLIP_RATE:
        marker = rng.randint(1, marker_count(item))
        commas ^= {marker}
        optional.discard(marker)
    return {"commas": sorted(commas), "optional": sorted(optional)}


def answer_classes(subtask: str, item: dict, answer: dict) -> list[tuple[str, str]]:
    """(task, class) of each unit of an answer: the item, or each of its markers (commas)."""
    if subtask != "commas":
        return [(item["id"], answer["answer"])]
    return [(f"{item['id']}#{marker}", "required" if marker in answer["commas"] else
             "optional" if marker in answer["optional"] else "none")
            for marker in range(1, marker_count(item) + 1)]


def real_case(subtask: str, data: Path, n_items: int, out: Path) -> list[tuple[str, str, str]]:
    items = read_jsonl(data / subtask / "dev.inputs.jsonl")[:n_items]
    gold = {record["id"]: record for record in read_jsonl(data / subtask / "dev.gold.jsonl")}
    folder = out / f"real-{subtask}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "inputs.jsonl").write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items),
                                         encoding="utf-8")
    rows = []
    for annotator in ("rater1", "rater2", "rater3"):
        rng = random.Random(f"{subtask}:{annotator}")
        lines = []
        for item in items:
            if rng.random() < SKIP_RATE:
                continue
            answer = slipped(subtask, item, gold[item["id"]], rng)
            lines.append({"id": item["id"], **answer})
            rows += [(task, annotator, value) for task, value in answer_classes(subtask, item, answer)]
        (folder / f"{annotator}.jsonl").write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"),
                        help="the benchmark's sample data: <subtask>/dev.inputs.jsonl and dev.gold.jsonl")
    parser.add_argument("-o", "--output", type=Path, default=FIXTURES)
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    cases = [(name, random_rows(*parameters)) for name, *parameters in RANDOM_CASES] + [("ties", TIED_ROWS)]
    cases += [(f"real-{subtask}", real_case(subtask, args.data, n_items, args.output))
              for subtask, n_items in REAL_SUBTASKS.items()]
    versions = {"crowd-kit": crowdkit.__version__ if hasattr(crowdkit, "__version__") else "1.4.2",
                "pandas": pd.__version__, "numpy": np.__version__}
    for name, rows in cases:
        reference = {"case": name, "versions": versions, "rows": [list(row) for row in rows], **crowd_kit_fit(rows)}
        (args.output / f"{name}.json").write_text(json.dumps(reference, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{name}: {len(rows)} answers, {reference['iterations']} iterations")


if __name__ == "__main__":
    main()
