"""Recompute every number of this release bundle's summary.json from the bundle alone.

Needs Python 3 with numpy, jsonschema and fastjsonschema; the scorer is the bundled copy of
`scoring` (the version the numbers were made with). It checks SHA256SUMS first, then scores
every source with the scorer (`score`, `compare`, `annotators`, `agreement`, as the paper's
figures were computed), recomputes the other figures (time, completion, qualification, pay)
from the bundle's files, states the panel studies' figures as the studies' records give them
(studies.json: they come from no file of the bundle), and compares the result with summary.json
key by key.

    python3 reproduce.py [--gold DIR]

--gold DIR: a folder holding the gold files the manifest names, for a bundle made without its
gold (the scores cannot be checked without it).
Exit status: 0 every number equal; 1 a checksum or a number differs; 2 the gold is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
from datetime import datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # nothing written into the checked bundle
sys.path.insert(0, str(ROOT))  # the bundled scorer before any other

from scoring.__main__ import main as scoring  # noqa: E402
from scoring.significance import holm  # noqa: E402
from scoring.subtasks import SUBTASKS  # noqa: E402


def checksum_problems() -> list[str]:
    """Every file of SHA256SUMS that is missing or differs, and every file it does not list."""
    listed, problems = {}, []
    for line in (ROOT / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    for name, digest in listed.items():
        path = ROOT / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"{name}: its SHA-256 is not the one SHA256SUMS lists")
    for path in sorted(ROOT.rglob("*")):
        name = path.relative_to(ROOT).as_posix()
        if path.is_file() and name != "SHA256SUMS" and name not in listed and "__pycache__" not in name:
            problems.append(f"{name}: not listed in SHA256SUMS")
    return problems


def run(*arguments: str) -> dict:
    """What `python -m scoring ARGUMENTS --json` prints, as a dictionary."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = scoring([*arguments, "--json"])
    if status != 0:
        raise SystemExit(f"python -m scoring {' '.join(arguments)} ended with {status}")
    return json.loads(out.getvalue())


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def interval(manifest: dict) -> list[str]:
    return ["--ci", str(manifest["resamples"]), "--seed", str(manifest["seed"])]


def units(source: dict, part: dict) -> list[str]:
    if source["units"] == "items":
        return ["--items", str(ROOT / part["items"])]
    return ["--only-answered"] if source["units"] == "only-answered" else []


def scores(manifest: dict, key: str, part: dict, gold: Path) -> tuple[dict, dict, dict | None]:
    """The sources' figures, the human source beside each model, and the mean annotator."""
    every = interval(manifest)
    sources = {source["source"]: run("score", key, "--gold", str(gold), "--pred", str(ROOT / source["file"]),
                                     *units(source, part), *every) for source in part["sources"]}
    human = next((source for source in part["sources"] if source["source"] == manifest["human_source"]), None)
    comparisons = {}
    for model in part["models"] if human else []:
        figures = run("compare", key, "--gold", str(gold), "--pred", str(ROOT / human["file"]),
                      "--pred", str(ROOT / model["file"]), *units(human, part), *every,
                      "--test-rounds", str(manifest["test_rounds"]))
        comparisons[model["name"]] = {
            "score_human": figures["score_a"], "score_model": figures["score_b"], "n_items": figures["n_gold"],
            **{name: figures.get(name) for name in ("diff", "diff_ci_low", "diff_ci_high", "p_value", "mcnemar_p",
                                                    "n_a_only", "n_b_only")},
            "p_holm": None, "family": None}
    annotators = [str(ROOT / name) for name in part["annotators"]]
    group = None
    if annotators:
        figures = run("annotators", key, "--gold", str(gold), "--pred", *annotators, *every)
        if figures.get("mean") is not None:
            group = {name: figures.get(name) for name in ("mean", "ci_low", "ci_high", "min", "max", "n_annotators")}
            group["models"] = {}
            for model in sorted(part["models"], key=lambda model: model["name"]):
                with_model = run("annotators", key, "--gold", str(gold), "--pred", *annotators,
                                 "--model", str(ROOT / model["file"]), *every)
                group["models"][model["name"]] = {name: with_model.get(name)
                                                  for name in ("diff", "diff_ci_low", "diff_ci_high")}
    return sources, comparisons, group


def qualification(procedure: dict) -> dict:
    annotators = procedure["annotators"]
    return {
        "training_items": procedure["training_items"], "threshold": procedure["threshold"],
        "n_trained": sum(1 for row in annotators if row["tries"]),
        "n_qualified": sum(1 for row in annotators if row["qualified_on_try"] is not None or row["released"]),
        "n_released": sum(1 for row in annotators if row["released"]),
        "control_rate": procedure["control_rate"], "control_items": procedure["control_items"],
        "n_control_answers": sum(row["control_answers"] for row in annotators),
        "n_below_control_threshold": sum(1 for row in annotators if row["below_control_threshold"]),
    }


def time_figures(answers: list[dict]) -> dict:
    if not answers:
        return {"n_answers": 0, "median_s": None, "q1_s": None, "q3_s": None, "person_hours": 0.0}
    seconds = np.asarray([answer["active_ms"] for answer in answers], dtype=np.float64) / 1000
    q1, median, q3 = (float(value) for value in np.percentile(seconds, [25, 50, 75]))
    return {"n_answers": len(answers), "median_s": median, "q1_s": q1, "q3_s": q3,
            "person_hours": float(seconds.sum()) / 3600}


def subtask(manifest: dict, key: str, part: dict, gold_dir: Path | None) -> dict:
    answers = lines(ROOT / part["answers"])
    sample = json.loads((ROOT / part["sample"]).read_text(encoding="utf-8"))
    items = (ROOT / part["items"]).read_text(encoding="utf-8").split() if part["items"] else []
    inputs = str(ROOT / part["inputs"])
    annotators = [str(ROOT / name) for name in part["annotators"]]
    agreement = run("agreement", key, "--inputs", inputs, "--pred", *annotators) if annotators else {}
    agreement.pop("reasons", None)
    sources, comparisons, group = {}, {}, None
    if not part["gold_synthetic"]:
        gold = (gold_dir / Path(part["gold"]).name) if gold_dir else ROOT / part["gold"]
        if not gold.is_file():
            raise FileNotFoundError(part["gold"])
        sources, comparisons, group = scores(manifest, key, part, gold)
    human = sources.get(manifest["human_source"])
    served = len(sample["ids"])
    return {
        "dataset": part["dataset"], "subtask": key, "gold_synthetic": part["gold_synthetic"],
        "n_items": part["n_items"], "n_gold": part["n_gold"], "n_withdrawn": part["n_withdrawn"],
        "sample": {"size": sample["size"], "seed": sample["seed"], "field": sample["field"], "n_served": served},
        "n_annotators": len({answer["annotator"] for answer in answers}),
        "sources": sources, "comparisons": comparisons, "mean_annotator": group, "agreement": agreement,
        "time": time_figures(answers),
        "completion": {"n_complete_items": len(items), "n_served": served,
                       "completion_rate": len(items) / served if served else None,
                       "complete_without_answer": human["n_missing"] if human else None},
        "qualification": qualification(json.loads((ROOT / part["procedure"]).read_text(encoding="utf-8"))),
    }


def adjust(subtasks: dict) -> None:
    """Holm's adjusted p over each model's subtasks with a p-value, in the benchmark's order."""
    models = sorted({name for part in subtasks.values() for name in part["comparisons"]})
    for model in models:
        cells = [subtasks[key]["comparisons"][model] for key in SUBTASKS
                 if key in subtasks and (subtasks[key]["comparisons"].get(model) or {}).get("p_value") is not None]
        for cell, adjusted in zip(cells, holm([cell["p_value"] for cell in cells])):
            cell["p_holm"], cell["family"] = adjusted, len(cells)


def pay(protocol: dict, answers: list[dict]) -> dict:
    spans: dict[str, list] = {}
    for answer in answers:
        started, submitted = datetime.fromisoformat(answer["started_at"]), datetime.fromisoformat(answer["submitted_at"])
        first, last = spans.setdefault(answer["annotator"], [started, submitted])
        spans[answer["annotator"]] = [min(first, started), max(last, submitted)]
    hours = [(last - first).total_seconds() / 3600 for first, last in spans.values()]
    median = float(np.median(hours)) if hours else None
    amount, basis = protocol.get("pay_amount"), protocol.get("pay_basis") or None
    per_hour = None if amount is None else amount if basis == "hour" else (amount / median if median else None)
    return {"amount": amount, "currency": protocol.get("pay_currency") or None, "basis": basis,
            "median_hours_start_to_finish": median, "n_people": len(hours), "per_hour": per_hour}


def differences(expected, found, path: str = "") -> list[str]:
    if isinstance(expected, dict) and isinstance(found, dict):
        keys = list(dict.fromkeys([*expected, *found]))
        return [line for key in keys for line in differences(expected.get(key, "<missing>"),
                                                              found.get(key, "<missing>"), f"{path}.{key}")]
    if expected != found:
        return [f"{path.lstrip('.')}: summary.json has {expected!r}, recomputed {found!r}"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, help="folder with the gold files (a bundle made without them)")
    args = parser.parse_args(argv)
    problems = checksum_problems()
    if problems:
        print("\n".join(problems))
        return 1
    manifest = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
    summary = json.loads((ROOT / "summary.json").read_text(encoding="utf-8"))
    try:
        subtasks = {key: subtask(manifest, key, part, args.gold) for key, part in manifest["subtasks"].items()}
    except FileNotFoundError as missing:
        print(f"the gold {missing} is not in the bundle: give the folder holding it with --gold DIR")
        return 2
    adjust(subtasks)
    every_answer = [answer for part in manifest["subtasks"].values() for answer in lines(ROOT / part["answers"])]
    protocol = json.loads((ROOT / "protocol.json").read_text(encoding="utf-8"))
    found = {key: manifest[key] for key in ("campaign", "seed", "resamples", "test_rounds", "confidence", "human_source")}
    # The panel studies' figures come from the study's records, not from the bundle's answers:
    # stated as given (studies.json), not recomputed.
    studies = json.loads((ROOT / "studies.json").read_text(encoding="utf-8"))
    found |= {"subtasks": subtasks, "pay": pay(protocol, every_answer), "studies": studies}
    found = json.loads(json.dumps(found))  # as summary.json holds it (tuples as lists)
    problems = differences(summary, found)
    if problems:
        print("\n".join(problems))
        return 1
    print(f"every number of summary.json recomputed and equal ({len(subtasks)} subtasks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
