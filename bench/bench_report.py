"""How long the human-baseline report of a dataset takes on PostgreSQL, and its peak memory.

5 annotators who answered every item of a commas dataset (5,000 and 10,000 items) and of a
discourse dataset (1,000 and 2,000 passages), made from the sample data (as bench_scoring.py
makes them), plus one model submission; the report with 1,000 resamples (every source
exported, scored with its interval, the model compared with each annotator, agreement, time)
and, separately, its plots. Seconds: best of 2 in this process, wall clock and CPU (this process; the
database server's share is in the wall clock only) (Django set up, modules
imported); peak memory: tracemalloc's peak of Python allocations (numpy's included) during
one report, and the process's peak resident size. Records bench/results.json "report".

    POLIS_BENCH_DB=polis_bench_report .venv/bin/python bench/bench_report.py

POLIS_BENCH_DB names a database on the PostgreSQL server at 127.0.0.1:5432 (created afresh
and dropped at the end; default polis_bench_report), so that no one else's data is touched.
"""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import sys
import time
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import bench_server as server  # noqa: E402
from bench_scoring import DATA, ROOT, commas_prediction, discourse_prediction, read_jsonl, scaled  # noqa: E402

DATABASE = os.environ.get("POLIS_BENCH_DB", "polis_bench_report")
if not DATABASE.isidentifier():
    sys.exit(f"POLIS_BENCH_DB must name a database (letters, digits, _), not {DATABASE!r}")
os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ.pop("DEBUG", None)  # DEBUG keeps every query in memory
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")

ANNOTATORS = 5
RUNS = 2
RESAMPLES = 1000
SIZES = {"commas": (5_000, 10_000), "discourse": (1_000, 2_000)}
GOLD = {"commas": "dev.gold.jsonl", "discourse": "dev.SYNTHETIC-gold.jsonl"}


def create_database() -> None:
    server.recreate_database(os.environ["DATABASE_URL"], DATABASE)


def drop_database() -> None:
    server.drop_database(os.environ["DATABASE_URL"], DATABASE)


def load(key: str, count: int):
    """A dataset of ``count`` items with gold, 5 annotators' answers to every item and a model."""
    from django.contrib.auth.models import User
    from django.db import connection
    from django.utils import timezone as django_time

    from annotation.answers.normalised import normalised_answer
    from annotation.models import Annotation, Assignment, Dataset, GoldAnswer, Item, ModelSubmission
    from annotation.results.exporting import jsonl_bytes

    rng = random.Random(f"report/{key}/{count}")
    inputs, gold = scaled(read_jsonl(DATA / key / "dev.inputs.jsonl"), read_jsonl(DATA / key / GOLD[key]), count, key)
    dataset = Dataset.objects.create(name=f"bench-{key}-{count}", subtask=key, source_filename="bench.jsonl",
                                     source_sha256="0" * 64, gold_synthetic=key == "discourse")
    items = Item.objects.bulk_create(
        [Item(dataset=dataset, external_id=record["id"], payload=record, ordinal=n) for n, record in enumerate(inputs)],
        batch_size=2000)
    GoldAnswer.objects.bulk_create([GoldAnswer(item=item, payload=line) for item, line in zip(items, gold)], batch_size=2000)

    def prediction(item, line):
        return commas_prediction(item, line, rng) if key == "commas" else discourse_prediction(line, rng)

    now = django_time.now()
    for number in range(1, ANNOTATORS + 1):
        annotator, _ = User.objects.get_or_create(username=f"bench{number}")
        Assignment.objects.bulk_create([Assignment(dataset=dataset, item=item, annotator=annotator, position=n)
                                        for n, item in enumerate(items, start=1)], batch_size=2000)
        answers = [{name: value for name, value in prediction(record, line).items() if name != "id"}
                   for record, line in zip(inputs, gold)]
        Annotation.objects.bulk_create([
            # The normalised answer as saving stores it: the adjudicated source finds the disagreements by it.
            Annotation(item=item, annotator=annotator, status=Annotation.Status.SUBMITTED, submitted_at=now,
                       active_ms=rng.randint(2_000, 90_000), answer=answer, normalised_answer=normalised_answer(key, answer))
            for item, answer in zip(items, answers)
        ], batch_size=2000)
    model = [prediction(record, line) for record, line in zip(inputs, gold)]
    ModelSubmission.objects.create(dataset=dataset, name="model", filename="model.jsonl", data=jsonl_bytes(model))
    with connection.cursor() as cursor:  # the planner's statistics, as autovacuum keeps them on a live server
        cursor.execute("ANALYZE")
    return dataset


def measure(dataset) -> dict:
    from annotation.results.plots import report_plots
    from annotation.results.report import dataset_report

    seconds, cpu_seconds, plot_seconds = [], [], []
    for _ in range(RUNS):
        start, cpu_start = time.perf_counter(), time.process_time()
        report = dataset_report(dataset, resamples=RESAMPLES)
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu_start)
        start = time.perf_counter()
        report_plots(report)
        plot_seconds.append(time.perf_counter() - start)
    tracemalloc.start()
    dataset_report(dataset, resamples=RESAMPLES)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"report_s": round(min(seconds), 3), "report_cpu_s": round(min(cpu_seconds), 3), "plots_s": round(min(plot_seconds), 3),
            "report_peak_traced_mb": round(peak / 2**20, 1),
            "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> None:
    create_database()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    load_before = os.getloadavg()
    print(f"load average before the runs: {load_before[0]:.2f} ({os.cpu_count()} CPUs)")
    figures = {}
    try:
        for key, sizes in SIZES.items():
            for count in sizes:
                dataset = load(key, count)
                measured = measure(dataset)
                figures[f"{key}_{count}"] = measured
                print(f"report {key}, {count:,} items x {ANNOTATORS} annotators + 1 model, {RESAMPLES} resamples: "
                      f"{measured['report_s']} s wall, {measured['report_cpu_s']} s CPU (plots {measured['plots_s']} s), "
                      f"peak {measured['report_peak_traced_mb']} MB traced, {measured['process_peak_rss_mb']} MB RSS")
    finally:
        drop_database()
    results_path = ROOT / "bench" / "results.json"
    results = json.loads(results_path.read_text(encoding="utf-8"))
    results["report"] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "load_average_1_5_15_min_before": list(load_before),
                    "load_average_1_5_15_min_after": list(os.getloadavg()),
                    "python": platform.python_version(), "system": platform.platform()},
        "settings": {"annotators": ANNOTATORS, "models": 1, "resamples": RESAMPLES, "runs": RUNS, "sizes": SIZES,
                     "database": "PostgreSQL 15 on 127.0.0.1:5432"},
        "figures": figures,
    }
    results_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
