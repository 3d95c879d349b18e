"""How long the report's page, each download and each plot take when served from a finished
computation (the target: at most 150 ms each), on PostgreSQL, through the whole Django stack.

The datasets of bench_report.py (5 annotators who answered every item, one model): commas of
5,000 items and discourse of 1,000 passages (its many plots: a relations plot per source),
and a campaign of both. Each report is asked for as the page does (``request_report``: a task
queued in the database by django-tasks-db), computed by the real worker (``manage.py
db_worker --batch``: it runs what is queued, then stops), then every URL is requested with
Django's test client as an organizer: the page, ``?format=json|md|csv|tex``, ``?plot=KEY`` for
every plot, the API, and the campaign table and its downloads. Milliseconds: median and worst
of 10 requests each (after one warm-up), this process (client and server) and the database.
Records bench/results.json "report_served".

    POLIS_BENCH_DB=polis_bench_served .venv/bin/python bench/bench_report_served.py

POLIS_BENCH_DB names a database on the PostgreSQL server at 127.0.0.1:5432 (created afresh
and dropped at the end; default polis_bench_served), so that no one else's data is touched.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("POLIS_BENCH_DB", "polis_bench_served")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import bench_report  # noqa: E402  (sets DATABASE_URL and the settings module)
from bench_scoring import ROOT  # noqa: E402

RUNS = 10
TARGET_MS = 150
SIZES = {"commas": 5_000, "discourse": 1_000}


def timed(client, url: str) -> dict:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        response = client.get(url)
        body = response.content
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1), "bytes": len(body)}


def main() -> None:
    bench_report.create_database()
    import django
    from django.core.management import call_command

    django.setup()
    from django.conf import settings
    from django.test import Client, override_settings
    from django.test.utils import setup_test_environment

    from annotation.models import StoredReport
    from annotation.results.computing import request_report
    from annotation.results.services import create_campaign
    from tests.factories import make_user

    setup_test_environment()  # the test client's host name and response context
    # No collectstatic here: the static files' URLs from the finders, as the tests have them.
    override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"], STORAGES={
        **settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}).enable()
    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    load_before = os.getloadavg()
    print(f"load average before the runs: {load_before[0]:.2f} ({os.cpu_count()} CPUs)")
    figures: dict[str, dict] = {}
    try:
        datasets = [bench_report.load(key, count) for key, count in SIZES.items()]
        campaign = create_campaign(name="bench-campaign", datasets=datasets)
        for dataset in datasets:
            request_report(dataset=dataset, seed=0, exclude_below_control=False)
        request_report(campaign=campaign, seed=0, exclude_below_control=False)
        start = time.perf_counter()
        call_command("db_worker", batch=True, no_startup_delay=True, verbosity=0)
        worker_s = time.perf_counter() - start
        done = StoredReport.objects.filter(status=StoredReport.Status.DONE).count()
        assert done == 3, list(StoredReport.objects.values("status", "error"))
        print(f"the worker computed 3 reports (2 datasets, 1 campaign) in {worker_s:.1f} s")
        client = Client()
        client.force_login(make_user("organizer", "bench-organizer"))
        urls = {}
        for dataset in datasets:
            base = f"/organize/{dataset.pk}/report/"
            urls[f"{dataset.name} page"] = base
            for fmt in ("json", "md", "csv", "tex"):
                urls[f"{dataset.name} {fmt}"] = f"{base}?format={fmt}"
            stored = StoredReport.objects.get(dataset=dataset)
            for plot in stored.plots:
                urls[f"{dataset.name} plot {plot['key']}"] = f"{base}?plot={plot['key']}"
            urls[f"{dataset.name} API"] = f"/api/datasets/{dataset.pk}/report"
        urls["campaign page"] = f"/organize/campaigns/{campaign.pk}/"
        for fmt in ("json", "md", "csv", "tex"):
            urls[f"campaign {fmt}"] = f"/organize/campaigns/{campaign.pk}/?format={fmt}"
        urls["campaign API"] = f"/api/campaigns/{campaign.pk}/report"
        for name, url in urls.items():
            figures[name] = timed(client, url)
            print(f"{name}: median {figures[name]['median_ms']} ms, worst {figures[name]['max_ms']} ms "
                  f"({figures[name]['bytes']:,} bytes)")
        worst = max(figure["max_ms"] for figure in figures.values())
        slowest_median = max(figure["median_ms"] for figure in figures.values())
        print(f"{len(urls)} URLs: slowest median {slowest_median} ms, worst single request {worst} ms "
              f"(target {TARGET_MS} ms)")
    finally:
        bench_report.drop_database()
    results_path = ROOT / "bench" / "results.json"
    results = json.loads(results_path.read_text(encoding="utf-8"))
    results["report_served"] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "load_average_1_5_15_min_before": list(load_before),
                    "load_average_1_5_15_min_after": list(os.getloadavg()),
                    "python": platform.python_version(), "system": platform.platform()},
        "settings": {"sizes": SIZES, "annotators": bench_report.ANNOTATORS, "models": 1, "runs": RUNS,
                     "target_ms": TARGET_MS, "database": "PostgreSQL 15 on 127.0.0.1:5432"},
        "worker_s": round(worker_s, 1),
        "slowest_median_ms": slowest_median,
        "worst_ms": worst,
        "figures": figures,
    }
    results_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
