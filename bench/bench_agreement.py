"""How long `python -m scoring agreement` takes and how much memory it peaks at, whole process.

Three perturbed submissions ("annotators") of 10,000 commas items and of 2,000 discourse
passages made from the sample data (as bench_scoring.py makes them), and the same at half
size, so that the memory per item is the difference of the two peaks over the difference
of the sizes. Prints one line per figure and records them in bench/results.json under
"agreement".

    .venv/bin/python bench/bench_agreement.py
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench_scoring import DATA, OUT, ROOT, commas_prediction, discourse_prediction, read_jsonl, scaled, write_jsonl
from recorded import record

RUNS = 3
FILES = 3
SIZES = {"commas": (5_000, 10_000), "discourse": (1_000, 2_000)}
GOLD = {"commas": "dev.gold.jsonl", "discourse": "dev.SYNTHETIC-gold.jsonl"}
# Runs the scorer's command in this process and prints its peak resident memory (kB) last.
MEASURED = (
    "import resource, runpy, sys\n"
    "sys.argv = sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_module('scoring', run_name='__main__')\n"
    "except SystemExit as exit:\n"
    "    code = exit.code\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def generate(key: str, count: int) -> tuple[Path, list[Path]]:
    rng = random.Random(f"agreement/{key}/{count}")
    inputs, gold = scaled(read_jsonl(DATA / key / "dev.inputs.jsonl"), read_jsonl(DATA / key / GOLD[key]), count, key)
    inputs_path = OUT / f"agreement.{key}.{count}.inputs.jsonl"
    write_jsonl(inputs_path, inputs)
    files = []
    for number in range(1, FILES + 1):
        if key == "commas":
            records = [commas_prediction(item, line, rng) for item, line in zip(inputs, gold)]
        else:
            records = [discourse_prediction(line, rng) for line in gold]
        path = OUT / f"agreement.{key}.{count}.annotator{number}.jsonl"
        write_jsonl(path, records)
        files.append(path)
    return inputs_path, files


def measure(command: list[str], program: str = MEASURED, env: dict | None = None) -> tuple[float, float, int]:
    """Best wall-clock seconds and best CPU seconds (user + system) of RUNS runs of
    ``program`` (Python source printing its peak memory in kB last on stderr) with the
    arguments ``command``, and the peak resident memory in kB. On a busy machine the CPU time
    is the steadier figure."""
    walls, cpus, peaks = [], [], []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        completed = subprocess.run([sys.executable, "-c", program, *command], cwd=ROOT, env=env,
                                   capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if completed.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{completed.stdout}{completed.stderr}")
        peaks.append(int(completed.stderr.splitlines()[-1]))
    return min(walls), min(cpus), max(peaks)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    print(f"load average before the runs: {load[0]:.2f} ({os.cpu_count()} CPUs)")
    figures: dict[str, object] = {}
    for key, sizes in SIZES.items():
        peaks = {}
        for count in sizes:
            inputs, files = generate(key, count)
            command = ["scoring", "agreement", key, "--inputs", str(inputs), "--pred", *map(str, files), "--json"]
            wall, cpu, peak = measure(command)
            peaks[count] = peak
            figures[f"{key}_{count}_items_s"] = round(wall, 3)
            figures[f"{key}_{count}_items_cpu_s"] = round(cpu, 3)
            figures[f"{key}_{count}_items_peak_mb"] = round(peak / 1024, 1)
            print(f"agreement {key}, {count:,} items x {FILES} files, best of {RUNS}: "
                  f"{wall:.3f} s wall, {cpu:.3f} s CPU, peak {peak / 1024:.1f} MB")
        small, large = sizes
        per_item = (peaks[large] - peaks[small]) * 1024 / (large - small)
        figures[f"{key}_bytes_per_item"] = round(per_item)
        print(f"agreement {key}: {per_item / 1024:.1f} kB more peak memory per item ({FILES} answers each)")
    record("agreement", {"files": FILES, "runs": RUNS, "sizes": SIZES}, figures, load)


if __name__ == "__main__":
    main()
