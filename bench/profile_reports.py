"""Server cost of the organizer's report requests, in-process: what a gunicorn worker spends on
`GET /api/datasets/<id>/report` and `GET /api/campaigns/<id>/report` (the requests of the
campaign benchmark's --organizer-reports) while annotators save, so that it does not save.

No HTTP server: each request is a WSGI environ handed to Django's WSGI handler (with an API
token), as gunicorn hands it over (bench/profile_saves.py's). The reports are computed first
(bench/bench_campaign.py's campaign, 20 annotators' answers); each request is then measured as
the benchmark meets it: a new answer since the report was computed (so "what changed since" and
a computation of the new data are asked for) and the data version read on the request (as when
POLIS_REPORT_VERSION_SECONDS has passed), or taken from the shared cache. Reported per path:
wall and CPU time of this process, CPU time of its PostgreSQL backend, the queries, the SQL time
and the bytes served (medians of --runs). --profile PATH runs cProfile over it.

    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/polis_reports_profile SECRET_KEY=...
    python bench/profile_reports.py --setup      # the campaign and its reports (drops the database)
    python bench/profile_reports.py [--runs 5] [--profile /api/campaigns/1/report [--sort tottime]]
"""

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
sys.path.insert(0, str(BASE_DIR / "bench"))

from profile_saves import Response, database_cpu, environ  # noqa: E402

ORGANIZER = "reports-profile-organizer"


def setup() -> None:
    import bench_server as server
    from profile_saves import setup as import_datasets

    import_datasets()  # refuses any database but *_profile
    from bench_campaign import answer_campaign, make_users
    from django.test import override_settings

    from annotation.models import Dataset, StoredReport
    from annotation.results.computing import request_report, run_computation
    from annotation.results.services import create_campaign
    from tests.factories import make_user

    datasets = list(Dataset.objects.order_by("pk"))
    answer_campaign(datasets, make_users("reports-profile", 20))
    make_user("organizer", ORGANIZER)
    campaign = create_campaign(name="reports-profile", datasets=datasets)
    with override_settings(TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}):
        for target in [{"dataset": dataset} for dataset in datasets] + [{"campaign": campaign}]:
            run_computation(request_report(**target, seed=0, exclude_below_control=False).pk)
    server.analyze()
    print(f"{StoredReport.objects.count()} reports computed")


class Queries:
    """Counts the queries and their time (execute_wrapper)."""

    def __init__(self):
        self.count, self.seconds = 0, 0.0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.count += 1


def new_answer() -> None:
    """One answer of every dataset submitted again now: every report is of older data."""
    from django.utils import timezone

    from annotation.models import Annotation, Dataset

    now = timezone.now()
    for dataset in Dataset.objects.values_list("pk", flat=True):
        first = Annotation.objects.filter(item__dataset=dataset).order_by("pk").values_list("pk", flat=True).first()
        Annotation.objects.filter(pk=first).update(submitted_at=now, updated_at=now)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setup", action="store_true", help="make the campaign and compute its reports")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", help="cProfile the requests of this path")
    parser.add_argument("--sort", default="cumulative")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    import django

    django.setup()
    if args.setup:
        setup()
        return
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection
    from django.test import override_settings

    from annotation.accounts.tokens import issue_token
    from annotation.models import Campaign, Dataset

    token = issue_token(User.objects.get(username=ORGANIZER)).key
    handler = WSGIHandler()
    paths = [*(f"/api/datasets/{pk}/report" for pk in Dataset.objects.order_by("pk").values_list("pk", flat=True)),
             f"/api/campaigns/{Campaign.objects.get().pk}/report"]
    headers = {"Authorization": f"Token {token}"}
    tasks = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    for label, version_seconds in (("version read", 0), ("version cached", 3600)):
        with override_settings(POLIS_REPORT_VERSION_SECONDS=version_seconds, POLIS_REPORT_REFRESH=timedelta(0), TASKS=tasks):
            new_answer()
            cache.clear()
            for path in paths:
                Response(handler, environ("GET", path, headers=headers))  # warm: connection, cache
                rows = []
                profiler = cProfile.Profile() if args.profile == path else None
                for _run in range(args.runs):
                    if version_seconds == 0:
                        new_answer()
                    queries = Queries()
                    wall, cpu, database = time.perf_counter(), time.process_time(), database_cpu()
                    with connection.execute_wrapper(queries):
                        if profiler:
                            profiler.enable()
                        response = Response(handler, environ("GET", path, headers=headers))
                        if profiler:
                            profiler.disable()
                    rows.append((time.perf_counter() - wall, time.process_time() - cpu, database_cpu() - database,
                                 queries.count, queries.seconds, len(response.body.encode())))
                    assert response.status == 200, (path, response.status, response.body[:200])
                wall, cpu, database, count, sql, size = (statistics.median(column) for column in zip(*rows))
                print(f"{label}, {path}: wall {1000 * wall:.1f} ms, CPU {1000 * cpu:.1f} ms, database CPU "
                      f"{1000 * database:.0f} ms, {count:.0f} queries, SQL {1000 * sql:.1f} ms, {size / 1000:,.0f} kB",
                      flush=True)
                if profiler:
                    pstats.Stats(profiler).sort_stats(args.sort).print_stats(30)


if __name__ == "__main__":
    main()
