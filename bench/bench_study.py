"""Panel study benchmark: 400 participants entering a study by its link within 10 s and answering
their quota with think time, on PostgreSQL + gunicorn with deploy/gunicorn.conf.py's workers
(two per core).

Run through bench/study.sh, which provides PostgreSQL (fsync on), the virtualenv and the
settings. In the database named by DATABASE_URL (dropped and made anew: it must be
polis_bench_study) it imports a routed commas dataset (k answers per item) and a study of it
(a quota per participant), times one entry in-process (where its time goes: the routing order
it inserts, annotation.datasets.assigning.join, against the rest), then starts gunicorn and
the participants (bench/study_load.py, in processes of at most 100 clients; arrivals drawn
uniformly within the window, the time on the consent page within --reading and before each save
within --think, all seeded). Prints the
load average, every kind of request's p50, p95 and maximum, the p95 of all, the errors, and
what the database holds afterwards (no item above k, the counters equal to the rows, every
participant completed); writes the figures to bench/results.json.
"""

import argparse
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import time
from decimal import Decimal

import bench_server as server
from bench_server import BASE_DIR, NO_WORKER_RESTARTS, PYTHON, SqlClock, analyze, campaign_inputs, figures, percentile, report
from load import cpu_by_process, ended_children_cpu, parent_pid
from recorded import record

DATABASE_NAME = "polis_bench_study"
PANEL_STUDY = "65a1b2c3d4e5f60718293a4b"
COMPLETED_CODE = "C8ENCH01"
# p95 of every request, and errors: the target.
TARGET_P95_MS = 100


def make_study(items: int, k: int, quota: int, deadline_minutes: int):
    from annotation.core.files import SourceFile
    from annotation.datasets.importing import import_dataset
    from annotation.datasets.routing import set_routing
    from annotation.models import Study, StudyDataset

    dataset = import_dataset(subtask="commas", name="bench-study-commas",
                             inputs=SourceFile("study.inputs.jsonl", campaign_inputs(items)))
    dataset = set_routing(dataset, routing=True, answers_per_item=k)
    study = Study.objects.create(
        name="bench-study", token=secrets.token_urlsafe(24), consent="Zgadzam się na udział w badaniu.",
        completed_code=COMPLETED_CODE, screened_out_code="SCREENED", no_consent_code="NOCONSENT",
        panel_study_id=PANEL_STUDY, pay_amount=Decimal("2.50"), deadline_minutes=deadline_minutes,
    )
    StudyDataset.objects.create(study=study, dataset=dataset, order=1, quota=quota)
    return study, dataset


def panel_ids(count: int) -> list[str]:
    """Prolific-like participant ids: 24 hexadecimal digits, seeded."""
    rng = random.Random("panel ids")
    return [f"{rng.getrandbits(96):024x}" for _ in range(count)]


def profile_entry(study, dataset, repeats: int) -> None:
    """One entry's time in-process (no HTTP), its SQL statements, and the join of the study's
    dataset alone (the routing order it inserts: one row per item); each rolled back."""
    from django.contrib.auth.models import Group, User
    from django.db import connection, transaction

    from annotation.core.roles import ANNOTATOR
    from annotation.datasets.assigning import join
    from annotation.studies import entering

    entries, joins = [], []
    with SqlClock(connection).running() as sql:
        for number in range(repeats):
            with transaction.atomic():
                entry = entering.PanelEntry(participant_id=f"{number:024x}", study_id=PANEL_STUDY, session_id="p")
                started = time.perf_counter()
                entering.enter(study, entry)
                entries.append(time.perf_counter() - started)
                transaction.set_rollback(True)
    for number in range(repeats):
        with transaction.atomic():
            user = User.objects.create(username=f"bench-join-{number}")
            user.groups.add(Group.objects.get(name=ANNOTATOR))
            started = time.perf_counter()
            join(dataset, [user])
            joins.append(time.perf_counter() - started)
            transaction.set_rollback(True)
    assert not User.objects.exists()
    report("entry_in_process_ms", "one entry in-process (no HTTP), median", 1000 * statistics.median(entries), "ms", 2)
    report("entry_sql_ms", "one entry in-process: SQL statements (commit not included), mean",
           1000 * sql.seconds / repeats, "ms", 2)
    report("join_in_process_ms", f"joining the dataset alone ({dataset.items.count()} routing order rows), median",
           1000 * statistics.median(joins), "ms", 2)


def run_participants(base_url: str, study, ids: list[str], window: float, think: str, reading: str,
                     per_generator: int, seed: int) -> dict:
    """The participants as clients of bench/study_load.py, in processes of at most
    ``per_generator`` clients; their figures merged."""
    rng = random.Random(seed)
    arrivals = [rng.uniform(0, window) for _ in ids]
    start_at = time.time() + 3  # the generators started and their clients made meanwhile
    generators = [
        subprocess.Popen(
            [PYTHON, str(BASE_DIR / "bench" / "study_load.py"), base_url, "--token", study.token,
             "--ids", ",".join(ids[first:first + per_generator]), "--study-id", PANEL_STUDY, "--code", COMPLETED_CODE,
             "--start-at", str(start_at), "--arrivals", ",".join(f"{value:.3f}" for value in arrivals[first:first + per_generator]),
             "--think", think, "--reading", reading, "--seed", str(seed + first)],
            stdout=subprocess.PIPE, text=True,
        )
        for first in range(0, len(ids), per_generator)
    ]
    runs = []
    for generator in generators:
        output, _ = generator.communicate()
        if generator.returncode:
            sys.exit(f"the load generator failed ({generator.returncode})")
        runs.append(json.loads(output))
    kinds = runs[0]["times"]
    return {
        "times": {kind: [seconds for run in runs for seconds in run["times"][kind]] for kind in kinds},
        "errors": [error for run in runs for error in run["errors"]],
        "completed": sum(run["completed"] for run in runs),
        "waits": sum(run["waits"] for run in runs),
        "generator_cpu_s": sum(run["cpu_seconds"] for run in runs),
        "elapsed": max(run["elapsed"] for run in runs),
        "arrival_span_s": max(arrivals) - min(arrivals),
    }


def postmaster_pid() -> int:
    """The PostgreSQL server's main process (the parent of this connection's backend): it runs
    on this machine, as bench/study.sh provides it."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return parent_pid(cursor.fetchone()[0])


def stored_state(dataset, study, k: int, quota: int) -> dict:
    """What the database holds after the run, counted from the rows."""
    from django.db.models import Count

    from annotation.models import Annotation, Assignment, RoutedItem, StudyParticipant

    submitted = dict(Annotation.objects.filter(item__dataset=dataset, status="submitted")
                     .values_list("item_id").annotate(n=Count("pk")).order_by())
    reserved = dict(Assignment.objects.filter(dataset=dataset, reserved_until__isnull=False)
                    .values_list("item_id").annotate(n=Count("pk")).order_by())
    counters = {row.item_id: (row.submitted, row.reserved) for row in RoutedItem.objects.filter(dataset=dataset)}
    per_participant = dict(Annotation.objects.filter(item__dataset=dataset, status="submitted")
                           .values_list("annotator_id").annotate(n=Count("pk")).order_by())
    twice = (Assignment.objects.filter(dataset=dataset).values("item", "annotator").annotate(n=Count("pk"))
             .filter(n__gt=1).count())
    participants = StudyParticipant.objects.filter(study=study)
    return {
        "max_item_load": max((submitted.get(item, 0) + reserved.get(item, 0) for item in counters), default=0),
        "items_above_k": sum(submitted.get(item, 0) + reserved.get(item, 0) > k for item in counters),
        "counters_equal_rows": all(counters[item] == (submitted.get(item, 0), reserved.get(item, 0)) for item in counters),
        "items_given_twice_to_one": twice,
        "participants_above_quota": sum(n > quota for n in per_participant.values()),
        "participants": participants.count(),
        "participants_completed": participants.filter(completed_at__isnull=False).count(),
        "answers": sum(submitted.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--participants", type=int, default=400, help="participants (default 400)")
    parser.add_argument("--window", type=float, default=10, help="seconds within which they all enter (default 10)")
    parser.add_argument("--items", type=int, default=1000, help="commas items of the study's dataset (default 1000)")
    parser.add_argument("--k", type=int, default=3, help="answers per item (default 3)")
    parser.add_argument("--quota", type=int, default=5, help="items per participant (default 5)")
    parser.add_argument("--think", default="2,5", help="seconds of thinking per item, low,high (default 2,5)")
    # A participant reads the consent before agreeing to it (it says what is kept and released);
    # 0,0 consents the moment the page arrives, as the runs before 2026-12-06's last did.
    parser.add_argument("--reading", default="5,15",
                        help="seconds on the consent page before consenting, low,high (default 5,15)")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1),
                        help="gunicorn workers (default deploy/gunicorn.conf.py's: two per core)")
    parser.add_argument("--clients-per-generator", type=int, default=100)
    parser.add_argument("--results-key", default="study", help="the key of bench/results.json (default study)")
    args = parser.parse_args()

    server.recreate_database(os.environ["DATABASE_URL"], own_name=DATABASE_NAME)
    server.manage("migrate", "--noinput", "-v", "0")
    server.manage("createcachetable")
    server.manage("collectstatic", "--noinput", "-v", "0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    from tests.servers import gunicorn

    study, dataset = make_study(args.items, args.k, args.quota, deadline_minutes=60)
    profile_entry(study, dataset, repeats=20)
    analyze()

    load_before = os.getloadavg()
    print(f"load average before the run (1, 5, 15 min): {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}"
          f" on {os.cpu_count()} CPUs", flush=True)
    postmaster = postmaster_pid()
    with gunicorn(dict(os.environ), workers=args.workers, options=NO_WORKER_RESTARTS) as served:
        cpu_before, ended_before = cpu_by_process(), ended_children_cpu(postmaster)
        run = run_participants(served.base, study, panel_ids(args.participants), args.window, args.think,
                               args.reading, args.clients_per_generator, args.seed)
        cpu_after, ended_after = cpu_by_process(), ended_children_cpu(postmaster)
        workers = served.worker_pids()
    load_after = os.getloadavg()
    print(f"load average after the run (1, 5, 15 min): {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}",
          flush=True)
    figures["load_average_after"] = list(load_after)

    label = f"{args.participants} participants entering within {args.window:g} s"
    report("arrival_span_s", f"{label}: first to last arrival", run["arrival_span_s"], "s", 2)
    report("elapsed_s", f"{label}: the run, first arrival to the last completion page", run["elapsed"], "s", 1)
    everything = []
    for kind, seconds in run["times"].items():
        if not seconds:
            continue
        everything += seconds
        report(f"{kind}_requests", f"{kind}: requests", len(seconds), "", 0)
        report(f"{kind}_p50_ms", f"{kind}: p50", 1000 * statistics.median(seconds), "ms", 1)
        report(f"{kind}_p95_ms", f"{kind}: p95", 1000 * percentile(seconds, 0.95), "ms", 1)
        report(f"{kind}_max_ms", f"{kind}: max", 1000 * max(seconds), "ms", 1)
    report("all_requests", "all requests", len(everything), "", 0)
    report("all_p95_ms", "all requests: p95", 1000 * percentile(everything, 0.95), "ms", 1)
    report("all_requests_per_s", "all requests: throughput", len(everything) / run["elapsed"], "req/s", 1)

    def cpu(matches) -> float:
        return sum(seconds - cpu_before.get(pid, ("", 0.0))[1] for pid, (command, seconds) in cpu_after.items()
                   if matches(pid, command))

    gunicorn_cpu = cpu(lambda pid, command: pid in workers)
    # With the backends that ended during the run: a run longer than CONN_MAX_AGE has its
    # workers' connections closed and opened anew (any database's ended backends count here).
    postgres_cpu = (cpu(lambda pid, command: command.startswith("postgres: ") and f" {DATABASE_NAME} " in command)
                    + ended_after - ended_before)
    # What the server got of the machine: on a loaded machine far less than its 2 CPUs.
    report("gunicorn_cpu_s", "CPU used by gunicorn's workers during the run", gunicorn_cpu, "s", 1)
    report("gunicorn_cpu_share", "gunicorn's workers: CPU seconds per second of the run", gunicorn_cpu / run["elapsed"], "", 2)
    report("postgres_cpu_s", "CPU used by the benchmark's PostgreSQL backends (and those that ended during the run)",
           postgres_cpu, "s", 1)
    # The participants' own processes, on the same two cores as the server.
    report("generator_cpu_s", "CPU used by the load generators", run["generator_cpu_s"], "s", 1)
    report("gunicorn_cpu_per_request_ms", "gunicorn CPU per request", 1000 * gunicorn_cpu / len(everything), "ms", 2)
    report("postgres_cpu_per_request_ms", "PostgreSQL CPU per request", 1000 * postgres_cpu / len(everything), "ms", 2)
    report("errors", "errors", len(run["errors"]), "", 0)
    for error in run["errors"][:5]:
        print(f"  error: {error}")
    report("waits", "times no item was free (asked again a second later)", run["waits"], "", 0)
    report("completion_codes_received", "participants whose last page showed the completion code", run["completed"], "", 0)
    for key, value in stored_state(dataset, study, args.k, args.quota).items():
        figures[key] = value
        print(f"afterwards, {key.replace('_', ' ')}: {value}")
    met = figures["all_p95_ms"] <= TARGET_P95_MS and not run["errors"] and figures["items_above_k"] == 0
    figures["target_met"] = met
    print(f"target (p95 <= {TARGET_P95_MS} ms, 0 errors, no item above k): {'met' if met else 'NOT met'}")
    record(args.results_key, {
        "participants": args.participants, "window_s": args.window, "items": args.items, "k": args.k,
        "quota": args.quota, "think_s": args.think, "reading_s": args.reading, "seed": args.seed, "gunicorn_workers": args.workers,
        "clients_per_generator": args.clients_per_generator, "conn_max_age": os.environ.get("CONN_MAX_AGE"),
    }, figures, load=load_before, description=__doc__.splitlines()[0])
    server.drop_database(os.environ["DATABASE_URL"], DATABASE_NAME)


if __name__ == "__main__":
    main()
