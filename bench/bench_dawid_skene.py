"""How long the Dawid–Skene source takes on commas, and how much memory it peaks at.

Three perturbed submissions ("annotators") of N commas items made from the sample data (as
bench_agreement.py makes them; about 10 markers an item, so 300,000 marker answers at N =
10,000), at N = 5,000 and 10,000:

- the source itself: ``scoring.dawid_skene.dawid_skene_answers`` over the answer table (what
  the export and the report run after reading the answers), best of 3, with its peak of
  traced memory (tracemalloc: the arrays and the answers it makes);
- the whole command `python -m scoring dawid-skene commas` (reading and checking the files,
  the fit, writing the submission): best of 3 wall and CPU seconds and the process's peak
  resident memory.

Prints one line per figure and records them in bench/results.json under "dawid_skene".

    .venv/bin/python bench/bench_dawid_skene.py
"""

from __future__ import annotations

import os
import sys
import time
import tracemalloc

from bench_agreement import FILES, OUT, ROOT, generate, measure
from recorded import record

sys.path.insert(0, str(ROOT))

from scoring.agreement import read_answers  # noqa: E402
from scoring.dawid_skene import dawid_skene_answers  # noqa: E402

SIZES = (5_000, 10_000)
RUNS = 3


def source_figures(inputs, files) -> tuple[float, float, int, int, int]:
    """Best wall and CPU seconds of the source over the read table, its peak traced memory
    (bytes), the EM rounds and the marker answers fitted. On a busy machine the CPU time is the
    steadier figure."""
    read = read_answers("commas", inputs.read_bytes(), str(inputs), [(str(path), path.read_bytes()) for path in files])
    names = [path.name for path in files]
    best = best_cpu = float("inf")
    for _ in range(RUNS):
        start, start_cpu = time.perf_counter(), time.process_time()
        found = dawid_skene_answers("commas", read.table, names)
        best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - start_cpu)
    tracemalloc.start()
    dawid_skene_answers("commas", read.table, names)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    n_units = sum(len(posteriors.units) * len(read.table.answers_of(item_id))
                  for item_id, posteriors in found.items.items())
    return best, best_cpu, peak, found.model.iterations, n_units


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    print(f"load average before the runs: {load[0]:.2f} ({os.cpu_count()} CPUs)")
    figures: dict[str, object] = {}
    for count in SIZES:
        inputs, files = generate("commas", count)
        seconds, cpu_seconds, peak, iterations, n_units = source_figures(inputs, files)
        figures[f"source_{count}_items_s"] = round(seconds, 3)
        figures[f"source_{count}_items_cpu_s"] = round(cpu_seconds, 3)
        figures[f"source_{count}_items_traced_peak_mb"] = round(peak / 2**20, 1)
        figures[f"source_{count}_items_iterations"] = iterations
        figures[f"source_{count}_items_marker_answers"] = n_units
        print(f"dawid-skene source, {count:,} commas items x {FILES} annotators ({n_units:,} marker answers, "
              f"{iterations} rounds), best of {RUNS}: {seconds:.3f} s wall, {cpu_seconds:.3f} s CPU, traced peak {peak / 2**20:.1f} MB")
        output = OUT / f"dawid-skene.commas.{count}.jsonl"
        command = ["scoring", "dawid-skene", "commas", "--inputs", str(inputs), "--pred", *map(str, files),
                   "-o", str(output)]
        wall, cpu, peak_kb = measure(command)
        figures[f"command_{count}_items_s"] = round(wall, 3)
        figures[f"command_{count}_items_cpu_s"] = round(cpu, 3)
        figures[f"command_{count}_items_peak_mb"] = round(peak_kb / 1024, 1)
        print(f"python -m scoring dawid-skene, {count:,} commas items x {FILES} files, best of {RUNS}: "
              f"{wall:.3f} s wall, {cpu:.3f} s CPU, peak {peak_kb / 1024:.1f} MB")
    record("dawid_skene", {"files": FILES, "runs": RUNS, "sizes": SIZES}, figures, load)


if __name__ == "__main__":
    main()
