"""Server benchmark: a commas campaign of 5,000 items and 10 annotators on PostgreSQL + gunicorn.

Run through bench/server.sh, which provides PostgreSQL, the virtualenv and the settings.
This process builds the campaign in the database named by DATABASE_URL (dropped and made
anew: it must be a database of the benchmark's own), counts queries and times requests in-process, then starts
gunicorn and the load generator (bench/load.py) as separate processes and Chromium for the
page weight. Prints one line per figure and writes them to bench/results.json.
"""

import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
from recorded import record

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS = BASE_DIR / "bench" / "results.json"
SOURCE = BASE_DIR / "demo" / "data" / "commas" / "dev.inputs.jsonl"
PYTHON = sys.executable
DATABASE_NAME = "polis_bench"
DATASET_NAME = "bench-commas"
ANNOTATORS_PER_ITEM = 3
PASSWORD = "bench-" + secrets.token_urlsafe(12)

figures: dict[str, object] = {}


def report(key: str, label: str, value: float, unit: str, digits: int = 1) -> None:
    figures[key] = round(value, digits) if digits else int(value)
    print(f"{label}: {value:,.{digits}f} {unit}".rstrip(), flush=True)


def _admin(url: str) -> psycopg.Connection:
    """A connection to the maintenance database of the server of `url`."""
    parts = urlsplit(url)
    return psycopg.connect(
        host=parts.hostname, port=parts.port or 5432, user=parts.username or "postgres",
        password=parts.password, dbname="postgres", autocommit=True,
    )


def _own_database(url: str, own_name: str) -> str:
    """The database name of `url`, which must be the benchmark's own: `own_name`, or the one
    POLIS_BENCH_DB names (scripts/lib.sh bench_database)."""
    name = urlsplit(url).path.lstrip("/")
    if name not in (own_name, os.environ.get("POLIS_BENCH_DB")):
        sys.exit(f"refusing to drop database {name!r}: the benchmark only recreates {own_name!r}")
    return name


def recreate_database(url: str, own_name: str = DATABASE_NAME) -> None:
    """Drops and makes anew the database of `url`, which must be the benchmark's own (`own_name`)."""
    name = _own_database(url, own_name)
    with _admin(url) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
        figures["postgresql"] = admin.execute("SHOW server_version").fetchone()[0]
        figures["fsync"] = admin.execute("SHOW fsync").fetchone()[0]


def drop_database(url: str, own_name: str) -> None:
    """Drops the benchmark's own database of `url` once it is done (this process's connections closed)."""
    from django.db import connections

    connections.close_all()
    name = _own_database(url, own_name)
    with _admin(url) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(*args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=BASE_DIR, check=True)


def campaign_inputs(n_items: int, source: Path = SOURCE) -> bytes:
    """n_items real records of a sample (the commas one by default), repeated as needed, each with a new id."""
    sentences = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = []
    for number in range(n_items):
        record = dict(sentences[number % len(sentences)], id=f"bench-{number + 1:05d}")
        lines.append(json.dumps(record, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def make_campaign(n_items: int, n_annotators: int):
    from django.contrib.auth.models import Group, User

    from annotation.core.files import SourceFile
    from annotation.core.roles import ANNOTATOR
    from annotation.datasets.assigning import assign
    from annotation.datasets.importing import import_dataset

    group = Group.objects.get_or_create(name=ANNOTATOR)[0]
    annotators = []
    for number in range(1, n_annotators + 1):
        user = User.objects.create_user(f"bench-annotator-{number:02d}", password=PASSWORD)
        user.groups.add(group)
        annotators.append(user)

    inputs = SourceFile(name="bench.inputs.jsonl", data=campaign_inputs(n_items))
    started = time.perf_counter()
    dataset = import_dataset(subtask="commas", name=DATASET_NAME, inputs=inputs)
    report("import_s", f"import of {n_items:,} commas items (validate + insert)", time.perf_counter() - started, "s", 2)
    started = time.perf_counter()
    result = assign(dataset, annotators, ANNOTATORS_PER_ITEM)
    report(
        "assign_s",
        f"assignment to {n_annotators} annotators, {ANNOTATORS_PER_ITEM} per item ({result.total_added:,} assignments)",
        time.perf_counter() - started, "s", 2,
    )
    return dataset, annotators


class SqlClock:
    """Wall time spent in the SQL statements of one connection (in this process); the COMMIT
    of a transaction is not one of them (Django offers no public hook around it)."""

    def __init__(self, connection):
        self.connection = connection
        self.seconds = 0.0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started

    @contextmanager
    def running(self):
        with self.connection.execute_wrapper(self):
            yield self


def profile_in_process(dataset, annotator, repeats: int) -> None:
    """Queries of one item page and of one save & next, and where their time goes, measured
    in this process with Django's test client against the same database (no HTTP, no gunicorn)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(annotator)
    path = client.get(f"/annotate/{dataset.pk}/")["Location"]
    client.get(path)  # the first request of a session is not typical

    def view_page() -> None:
        response = client.get(path)
        assert response.status_code == 200, response.status_code

    def save_and_next() -> None:
        nonlocal path
        fields = {"answer": json.dumps({"commas": [1], "optional": []}), "version": "0", "intent": "submit"}
        response = client.post(path, {**fields, "active_ms": "900"}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200 and response.headers.get("HX-Push-Url"), response.status_code
        path = response.headers["HX-Push-Url"]

    for key, label, request in (("item_page", "item page", view_page), ("save", "save & next", save_and_next)):
        with CaptureQueriesContext(connection) as queries:
            request()
        report(f"queries_{key}", f"database queries per {label}", len(queries), "", 0)
        times = []
        with SqlClock(connection).running() as sql:
            for _ in range(repeats):
                started = time.perf_counter()
                request()
                times.append(time.perf_counter() - started)
        report(f"in_process_{key}_ms", f"{label} in-process (no HTTP), median", 1000 * statistics.median(times), "ms", 2)
        report(f"in_process_{key}_sql_ms", f"{label} in-process, of which SQL statements, commit not included (mean)", 1000 * sql.seconds / repeats, "ms", 2)


def analyze() -> None:
    """The planner's statistics of every table, as autovacuum keeps them on a live server."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def spare_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The benchmarks' gunicorn replaces no worker (deploy/gunicorn.conf.py replaces each after about
# 5,000 requests): a replacement falling in one run of a comparison put that run's p95 several
# times above its repeats' (the campaign benchmark's fixed queues at 350 annotators: 366.8 ms
# against 86.1 and 88.1), so runs differed by where the restarts fell, not by what they measured.
NO_WORKER_RESTARTS = ("--max-requests", "0")


@contextmanager
def gunicorn(workers: int):
    port = spare_port()
    server = subprocess.Popen(
        [
            PYTHON, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "polis_site.wsgi",
            "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--log-level", "warning",
            "--access-logfile", "/dev/null", *NO_WORKER_RESTARTS,
        ],
        cwd=BASE_DIR,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("gunicorn did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def cpu_used(run: dict, matches) -> float:
    """CPU seconds used during a load run by the processes whose command line `matches`."""
    before, after = run["cpu_before"], run["cpu_after"]
    return sum(
        seconds - before.get(pid, ["", 0.0])[1] for pid, (command, seconds) in after.items() if matches(command)
    )


def report_cpu(label: str, run: dict, gunicorn_bind: str) -> None:
    """Where the machine's CPU time went during a load run (2 cores: 2 CPU-seconds per second),
    from the snapshots of every process that bench/load.py took at its start and end."""
    def used(matches) -> float:
        return cpu_used(run, matches)

    gunicorn = used(lambda command: "gunicorn" in command and gunicorn_bind in command)
    postgres = used(lambda command: command.startswith("postgres: ") and f" {DATABASE_NAME} " in command)
    report("crowd_cpu_gunicorn_s", f"{label}: CPU used by gunicorn", gunicorn, "s")
    report("crowd_cpu_postgres_s", f"{label}: CPU used by the PostgreSQL backends of the benchmark", postgres, "s")
    report("crowd_cpu_generator_s", f"{label}: CPU used by the load generator", run["cpu_seconds"], "s")
    report("crowd_cpu_all_s", f"{label}: CPU used by every process of the machine", used(lambda command: True), "s")


def run_load(base_url: str, dataset_pk: int, users: list, **options) -> dict:
    command = [
        PYTHON, str(BASE_DIR / "bench" / "load.py"), base_url, str(dataset_pk),
        "--users", ",".join(user.username for user in users), "--password", PASSWORD,
    ]
    for option, value in options.items():
        command += [f"--{option.replace('_', '-')}"] if value is True else [f"--{option.replace('_', '-')}", str(value)]
    result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    if result["errors"]:
        raise SystemExit(f"load generator errors: {result['errors'][:5]}")
    return result


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def report_latencies(key: str, label: str, seconds: list[float]) -> None:
    report(f"{key}_p50_ms", f"{label} p50", 1000 * statistics.median(seconds), "ms", 2)
    report(f"{key}_p95_ms", f"{label} p95", 1000 * percentile(seconds, 0.95), "ms", 2)


def page_and_api(base_url: str, dataset_pk: int, page_user, api_user, items: int, rounds: int = 4) -> None:
    """One client saving through the item page (save & next, the next item included in the
    reply) and one through the REST API (POST /api/annotations/ with a token), one after the
    other in `rounds` alternating runs so that both meet the same load of the machine: latency
    and gunicorn's CPU time per save, and whether both stored the same."""
    from annotation.models import Annotation

    bind = urlsplit(base_url).netloc
    latencies: dict[str, list[float]] = {"page": [], "api": []}
    cpu: dict[str, float] = {"page": 0.0, "api": 0.0}
    for round_number in range(rounds):
        for flow, user in (("page", page_user), ("api", api_user)):
            options = {"api": True} if flow == "api" else {}
            run = run_load(base_url, dataset_pk, [user], items=items // rounds,
                           warmup_items=10 if round_number == 0 else 0, cpu_snapshots=True, **options)
            latencies[flow] += run["save"]
            cpu[flow] += cpu_used(run, lambda command: "gunicorn" in command and bind in command)
    label = f"1 client, {items} items each, {rounds} alternating runs"
    report_latencies("save_single", f"{label}: save & next through the item page, next item included", latencies["page"])
    report_latencies("api_save_single", f"{label}: save through /api/annotations/ with a token", latencies["api"])
    report("api_to_page_save_p50", f"{label}: API save p50 / page save p50",
           statistics.median(latencies["api"]) / statistics.median(latencies["page"]), "", 3)
    report("save_single_cpu_ms", f"{label}: gunicorn CPU per page save", 1000 * cpu["page"] / len(latencies["page"]), "ms", 2)
    report("api_save_single_cpu_ms", f"{label}: gunicorn CPU per API save", 1000 * cpu["api"] / len(latencies["api"]), "ms", 2)
    def stored(user) -> set:
        return {
            (json.dumps(annotation.answer, sort_keys=True), annotation.status, annotation.version,
             len(annotation.revisions.all()))
            for annotation in Annotation.objects.filter(annotator=user).prefetch_related("revisions")
        }

    same = stored(page_user) == stored(api_user)
    print(f"{label}: page and API stored the same answers, statuses, versions and revisions: {same}")
    figures["api_and_page_store_alike"] = same


def launch_chromium(playwright):
    """Debian's Chromium, never a browser downloaded by Playwright."""
    return playwright.chromium.launch(
        executable_path="/usr/bin/chromium",
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run"],
    )


def log_in(page, base_url: str, username: str) -> None:
    """Through the real login form, as an annotator does."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    page.wait_for_url(f"{base_url}/")


def page_weight(base_url: str, dataset_pk: int, annotator) -> None:
    """One item page as Chromium loads it with an empty cache (logged in from another context)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        login = browser.new_context()
        page = login.new_page()
        log_in(page, base_url, annotator.username)
        page.goto(f"{base_url}/annotate/{dataset_pk}/")
        item_url = page.url
        state = login.storage_state()
        login.close()

        cold = browser.new_context(storage_state=state)
        page = cold.new_page()
        responses = []
        page.on("requestfinished", lambda request: responses.append(request))
        page.goto(item_url, wait_until="load")
        page.wait_for_load_state("networkidle")
        timing = page.evaluate(
            "() => { const n = performance.getEntriesByType('navigation')[0];"
            " return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd}; }"
        )
        resources = []
        for request in responses:
            sizes = request.sizes()
            response = request.response()
            resources.append(
                {
                    "path": urlsplit(request.url).path,
                    "status": response.status if response is not None else None,
                    "transferred": sizes["responseBodySize"] + sizes["responseHeadersSize"],
                    "decoded": len(response.body()) if response is not None else 0,
                }
            )
        browser.close()
    transferred = sum(resource["transferred"] for resource in resources)
    decoded = sum(resource["decoded"] for resource in resources)
    figures["item_page_resources"] = resources
    report("item_page_requests", "item page, cold: requests", len(responses), "", 0)
    report("item_page_bytes", "item page, cold: bytes transferred (headers + bodies)", transferred, "B", 0)
    report("item_page_decoded_bytes", "item page, cold: bytes decoded", decoded, "B", 0)
    report("item_page_dcl_ms", "item page, cold: DOMContentLoaded", timing["dcl"], "ms", 0)
    report("item_page_load_ms", "item page, cold: load event", timing["load"], "ms", 0)


def save_results(settings: dict, key: str = "server") -> None:
    """The figures under `key` in bench/results.json, beside the other benchmarks' keys."""
    record(key, settings, figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=5000, help="commas items in the campaign (default 5000)")
    parser.add_argument("--annotators", type=int, default=11, help="annotators, 3 per item (default 11)")
    parser.add_argument("--single-items", type=int, default=500, help="items saved by the single client (default 500)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    parser.add_argument("--seconds", type=float, default=30, help="length of the concurrent run (default 30)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--results-key", default="server", help="the key of bench/results.json for the figures (default server)")
    args = parser.parse_args()
    if args.annotators < args.clients + 3:
        parser.error("needs at least clients + 3 annotators (a page client, an API client, one for counting)")

    recreate_database(os.environ["DATABASE_URL"])
    manage("migrate", "--noinput", "-v", "0")
    manage("createcachetable")
    manage("collectstatic", "--noinput", "-v", "0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    # The import and the assignment leave the planner's statistics of the items and
    # assignments fresh themselves (annotation/core/statistics.py): no ANALYZE here.
    dataset, annotators = make_campaign(args.items, args.annotators)
    queue_length = args.items * ANNOTATORS_PER_ITEM // args.annotators
    profile_in_process(dataset, annotators[-1], repeats=min(100, queue_length // 3))

    with gunicorn(args.workers) as base_url:
        page_and_api(base_url, dataset.pk, page_user=annotators[0], api_user=annotators[-2], items=args.single_items)

        # The statistics of the tables the single clients filled, as autovacuum would make
        # them sooner or later: without them the 8 clients' progress counts were planned on an
        # empty answer table, and PostgreSQL's CPU varied from run to run with when autovacuum came.
        analyze()
        crowd = run_load(
            base_url, dataset.pk, annotators[1 : 1 + args.clients], seconds=args.seconds, warmup_items=2, cpu_snapshots=True
        )
        requests = crowd["page"] + crowd["save"]
        label = f"{args.clients} clients, {args.seconds:g} s"
        report("crowd_requests_per_s", f"{label}: throughput (item pages + saves)", len(requests) / crowd["elapsed"], "req/s")
        report("crowd_saves_per_s", f"{label}: saves", len(crowd["save"]) / crowd["elapsed"], "saves/s")
        report_latencies("crowd_all", f"{label}: all requests", requests)
        report_latencies("crowd_save", f"{label}: saves", crowd["save"])
        report_cpu(label, crowd, gunicorn_bind=urlsplit(base_url).netloc)
        if crowd["queues_exhausted"]:
            print(f"note: {crowd['queues_exhausted']} clients reached the end of their queue")

        page_weight(base_url, dataset.pk, annotators[-1])

    save_results(
        {"items": args.items, "annotators": args.annotators, "annotators_per_item": ANNOTATORS_PER_ITEM,
         "gunicorn_workers": args.workers, "conn_max_age": os.environ.get("CONN_MAX_AGE")},
        key=args.results_key,
    )


if __name__ == "__main__":
    main()
