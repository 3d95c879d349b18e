"""The first 1,000 saves after an import: whether the app leaves the planner's statistics fresh.

On a fresh database (polis_first_saves, dropped and made anew) 5,000 commas items are imported
through the import service and assigned to 20 annotators, 4 per item (1,000 items each), then
one client saves 1,000 answers through the REST API (bench/load.py --api) on gunicorn (2 sync
workers, CONN_MAX_AGE=60). Run twice: as the app does it (ANALYZE of the tables an import
and an assignment fill, once they commit: annotation/core/statistics.py) and with that ANALYZE
turned off in this process, i.e. waiting for autovacuum as before. Prints the save latency
median and p95 of each. Run it with the settings of bench/server.sh: DATABASE_URL
(.../polis_first_saves), SECRET_KEY, ALLOWED_HOSTS=127.0.0.1, CONN_MAX_AGE=60.
"""

import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_server as server  # noqa: E402

DATABASE_NAME = "polis_first_saves"
ITEMS, ANNOTATORS, PER_ITEM, SAVES = 5000, 20, 4, 1000


def run(analyzed: bool) -> None:
    from django.db import connections

    connections.close_all()
    server.recreate_database(os.environ["DATABASE_URL"], DATABASE_NAME)
    server.manage("migrate", "--noinput", "-v", "0")
    server.manage("createcachetable")
    from annotation.core import statistics as planner

    original = planner._analyze
    if not analyzed:
        planner._analyze = lambda tables: None
    try:
        server.ANNOTATORS_PER_ITEM = PER_ITEM
        dataset, annotators = server.make_campaign(ITEMS, ANNOTATORS)
    finally:
        planner._analyze = original
    connections.close_all()
    with server.gunicorn(2) as base_url:
        result = server.run_load(base_url, dataset.pk, [annotators[0]], items=SAVES, api=True)
    saves = result["save"]
    label = "ANALYZE by the app" if analyzed else "no ANALYZE (autovacuum only)"
    key = "analyzed" if analyzed else "not_analyzed"
    server.report(f"first_saves_{key}_p50_ms", f"first {len(saves):,} API saves after the import, {label}: p50",
                  1000 * statistics.median(saves), "ms", 2)
    server.report(f"first_saves_{key}_p95_ms", f"first {len(saves):,} API saves after the import, {label}: p95",
                  1000 * server.percentile(saves, 0.95), "ms", 2)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    sys.path.insert(0, str(server.BASE_DIR))
    import django

    django.setup()
    for analyzed in (False, True):
        run(analyzed)


if __name__ == "__main__":
    main()
