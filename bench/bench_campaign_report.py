"""How long the campaign table of the benchmark's six datasets takes to compute: the campaign
benchmark's data (bench/bench_campaign.py: the test set's sizes, 20 annotators, 3 per item, the
demo raters' realistic answers) plus two models, then the background computation's work for
the campaign table (every dataset's report: 1,000 resamples, 10,000 rounds of the paired test
of each pooled source and each model, the mean annotator's two-way interval), timed per
dataset and for all six, with the process's peak memory.

    POLIS_BENCH_DB=polis_bench_same .venv/bin/python bench/bench_campaign_report.py

It uses its own database (POLIS_BENCH_DB, made anew and dropped at the end).
"""

from __future__ import annotations

import os
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# bench_report points Django at the database POLIS_BENCH_DB names, checked, with DEBUG off.
os.environ.setdefault("POLIS_BENCH_DB", "polis_bench_same")
from bench_report import create_database, drop_database  # noqa: E402

MODELS = ("model-a", "model-b")


def add_models(datasets: list) -> None:
    """Two models answering every item, each the demo raters' realistic answer with its own seed."""
    from bench_campaign import realistic_answer

    from annotation.models import ModelSubmission
    from annotation.results.exporting import jsonl_bytes
    from scoring.validation import submission_line

    for dataset in datasets:
        for name in MODELS:
            rng = random.Random(f"{name}/{dataset.name}")
            lines = [submission_line(dataset.subtask, item.external_id,
                                     realistic_answer(dataset.subtask, item.payload, item.gold.payload, rng))
                     for item in dataset.items.select_related("gold").order_by("ordinal")]
            ModelSubmission.objects.create(dataset=dataset, name=name, filename=f"{name}.jsonl", data=jsonl_bytes(lines))


def main() -> None:
    create_database()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from bench_campaign import CAMPAIGN_ANNOTATORS, answer_campaign, import_campaign, make_users

    from annotation.results.report import TEST_ROUNDS, campaign_report, dataset_report
    from annotation.results.services import create_campaign

    try:
        datasets = import_campaign()
        answer_campaign(datasets, make_users("campaign", CAMPAIGN_ANNOTATORS))
        add_models(datasets)
        print(f"load average before the runs: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
        for dataset in datasets:
            started, cpu = time.perf_counter(), time.process_time()
            dataset_report(dataset)
            print(f"report of {dataset.subtask} ({dataset.items.count():,} items, {CAMPAIGN_ANNOTATORS} annotators, "
                  f"{len(MODELS)} models, {TEST_ROUNDS:,} test rounds): {time.perf_counter() - started:.2f} s wall, "
                  f"{time.process_time() - cpu:.2f} s CPU")
        campaign = create_campaign(name="bench", datasets=datasets)
        started, cpu = time.perf_counter(), time.process_time()
        campaign_report(campaign)
        print(f"campaign table of the six datasets: {time.perf_counter() - started:.2f} s wall, "
              f"{time.process_time() - cpu:.2f} s CPU; peak RSS of the process "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    finally:
        drop_database()


if __name__ == "__main__":
    main()
