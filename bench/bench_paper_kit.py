"""How long a campaign's paper kit and release bundle take once its table is computed: the
campaign benchmark's six test-A-sized datasets (bench/bench_campaign.py: 20 annotators, 3 per
item, the demo raters' realistic answers) and two models (bench/bench_campaign_report.py), the
campaign table computed as the background computation does (1,000 resamples, 10,000 test
rounds; not timed: the kit starts from finished reports), then timed: the paper kit (pseudonyms,
summary.json, figures as PDF and SVG, tables, paper.tex, checklist, zipped) and the release bundle
(every source's file, answers, checksums, the scorer, zipped). Aim: under 60 s for both.

    POLIS_BENCH_DB=polis_bench_paper .venv/bin/python bench/bench_paper_kit.py

It uses its own database (POLIS_BENCH_DB, made anew and dropped at the end).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# bench_report points Django at the database POLIS_BENCH_DB names, checked, with DEBUG off.
os.environ.setdefault("POLIS_BENCH_DB", "polis_bench_paper")
from bench_report import create_database, drop_database  # noqa: E402


def main() -> None:
    create_database()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from bench_campaign import CAMPAIGN_ANNOTATORS, answer_campaign, import_campaign, make_users
    from bench_campaign_report import add_models

    from annotation.results.paper import paper_zip
    from annotation.results.release import campaigned, release_files, zip_bytes, zip_folder
    from annotation.results.report import campaign_report
    from annotation.results.services import create_campaign

    try:
        datasets = import_campaign()
        answer_campaign(datasets, make_users("campaign", CAMPAIGN_ANNOTATORS))
        add_models(datasets)
        campaign = create_campaign(name="bench", datasets=datasets)
        started = time.perf_counter()
        table = campaign_report(campaign)
        print(f"campaign table (not part of the kit): {time.perf_counter() - started:.2f} s")
        print(f"load average before the runs: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
        started, cpu = time.perf_counter(), time.process_time()
        kit = paper_zip(campaigned(campaign, table))
        kit_seconds = time.perf_counter() - started
        print(f"paper kit: {kit_seconds:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, {len(kit) / 1e6:.1f} MB zipped")
        started, cpu = time.perf_counter(), time.process_time()
        bundle = zip_bytes(release_files(campaigned(campaign, table), with_gold=True), zip_folder(campaign, "release"))
        release_seconds = time.perf_counter() - started
        print(f"release bundle: {release_seconds:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
              f"{len(bundle) / 1e6:.1f} MB zipped")
        print(f"kit and bundle: {kit_seconds + release_seconds:.2f} s (aim: under 60 s); peak RSS of the process "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    finally:
        drop_database()


if __name__ == "__main__":
    main()
