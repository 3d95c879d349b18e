"""How long `python -m scoring score` takes, whole process, on scaled-up sample data.

Generates 10,000 commas items and 2,000 discourse passages from the real sample
sentences (repeated with new ids), their gold and a perturbed prediction, under
bench/out/, then runs the scorer as a subprocess and prints the best of 3 runs,
one line per figure: plain `score`, `score --ci 1000` (the bootstrap interval) and
`compare --test-rounds 10000` of two predictions (the paired randomization test and McNemar's),
with the largest resident memory of the process.

    .venv/bin/python bench/bench_scoring.py
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "demo" / "data"
OUT = ROOT / "bench" / "out"
RUNS = 3
N_COMMAS = 10_000
N_DISCOURSE = 2_000
CI_RESAMPLES = 1000
TEST_ROUNDS = 10_000


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")


def scaled(inputs: list[dict], gold: list[dict], count: int, name: str):
    """``count`` copies of the sample items (cycled) with new, deterministic ids."""
    gold_by_id = {record["id"]: record for record in gold}
    new_inputs, new_gold = [], []
    for index in range(count):
        item = inputs[index % len(inputs)]
        new_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"polis-bench/{name}/{index}"))
        new_inputs.append({**item, "id": new_id})
        new_gold.append({**gold_by_id[item["id"]], "id": new_id})
    return new_inputs, new_gold


def commas_prediction(item: dict, gold: dict, rng: random.Random) -> dict:
    if rng.random() < 0.6:
        return {"id": gold["id"], "commas": gold["commas"], "optional": []}
    n_markers = item["sentence_with_positions"].count("[")
    guess = sorted(rng.sample(range(1, n_markers + 1), rng.randint(0, 2)))
    return {"id": gold["id"], "commas": guess, "optional": []}


def discourse_prediction(gold: dict, rng: random.Random) -> dict:
    units = []
    du_ids = [unit["du_id"] for unit in gold["discourse_units"]]
    for unit in gold["discourse_units"]:
        if unit["head"] is not None and rng.random() < 0.3:
            others = [du_id for du_id in du_ids if du_id != unit["du_id"]]
            unit = {**unit, "head": rng.choice(others), "relation": "Elaboration"}
        units.append(dict(unit))
    return {"id": gold["id"], "discourse_units": units}


def generate() -> dict[str, tuple[Path, Path]]:
    OUT.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20260101)
    files = {}

    inputs, gold = scaled(read_jsonl(DATA / "commas" / "dev.inputs.jsonl"),
                          read_jsonl(DATA / "commas" / "dev.gold.jsonl"), N_COMMAS, "commas")
    write_jsonl(OUT / "commas.inputs.jsonl", inputs)
    write_jsonl(OUT / "commas.gold.jsonl", gold)
    for pred in ("pred", "pred2"):
        write_jsonl(OUT / f"commas.{pred}.jsonl", [commas_prediction(item, key, rng) for item, key in zip(inputs, gold)])
    files["commas"] = (OUT / "commas.gold.jsonl", OUT / "commas.pred.jsonl")

    inputs, gold = scaled(read_jsonl(DATA / "discourse" / "dev.inputs.jsonl"),
                          read_jsonl(DATA / "discourse" / "dev.SYNTHETIC-gold.jsonl"), N_DISCOURSE, "discourse")
    write_jsonl(OUT / "discourse.inputs.jsonl", inputs)
    write_jsonl(OUT / "discourse.gold.jsonl", gold)
    for pred in ("pred", "pred2"):
        write_jsonl(OUT / f"discourse.{pred}.jsonl", [discourse_prediction(key, rng) for key in gold])
    files["discourse"] = (OUT / "discourse.gold.jsonl", OUT / "discourse.pred.jsonl")
    return files


def best_of(command: list[str]) -> tuple[float, float]:
    """Best wall-clock time and best CPU time (user + system) of the child process (and the
    largest resident memory of any child so far, read by ``largest_memory_mb``).

    The CPU time is what the process itself costs; the wall-clock time also shows
    how busy the machine was.
    """
    walls, cpus = [], []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if completed.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{completed.stdout}{completed.stderr}")
    return min(walls), min(cpus)


def main() -> None:
    files = generate()
    print(f"load average before the runs: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    wall, cpu = best_of([sys.executable, "-c", "pass"])
    print(f"python start-up alone: {wall:.3f} s wall, {cpu:.3f} s CPU")
    for key, count, unit in (("commas", N_COMMAS, "items"), ("discourse", N_DISCOURSE, "passages")):
        gold, pred = files[key]
        command = [sys.executable, "-m", "scoring", "score", key, "--gold", str(gold), "--pred", str(pred), "--json"]
        for options in ([], ["--ci", str(CI_RESAMPLES)]):
            wall, cpu = best_of(command + options)
            print(f"python -m scoring score {key} {' '.join(options)} ({count:,} {unit}), whole process, "
                  f"best of {RUNS}: {wall:.3f} s wall, {cpu:.3f} s CPU")
        wall, cpu = best_of([sys.executable, "-m", "scoring", "compare", key, "--gold", str(gold), "--pred", str(pred),
                             "--pred", str(pred.with_name(f"{key}.pred2.jsonl")), "--json",
                             "--test-rounds", str(TEST_ROUNDS)])
        print(f"python -m scoring compare {key} --test-rounds {TEST_ROUNDS} ({count:,} {unit}), whole process, "
              f"best of {RUNS}: {wall:.3f} s wall, {cpu:.3f} s CPU; largest child so far: "
              f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
