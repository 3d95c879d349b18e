"""Campaign benchmark: a campaign the size of the benchmark's test set, on PostgreSQL + gunicorn.

Run through bench/campaign.sh, which provides PostgreSQL (fsync on), the virtualenv and the
settings. In the database named by DATABASE_URL (dropped and made anew: it must be
polis_campaign) it imports all six subtasks with gold (the sample items of demo/data, repeated
with new ids to the test set's sizes), assigns them to 20 annotators, 3 per item, and fills in
their answers (the demo raters' realistic answers). Then simulated annotators, closed loops
thinking between items for a time drawn from a seeded exponential distribution (mean 2 s),
do save & next through the item page in queues of every subtask (bench/load.py, in processes
of at most 100 annotators: --clients-per-generator), on gunicorn with 2 workers (--workers)
and on two gunicorn instances behind nginx (deploy/nginx.conf): save latency at each number
of annotators, capacity (the most annotators served with save p95 <= 100 ms and no error),
saturation throughput with no thinking, the servers' memory (PSS), and, for every dataset, the
export of every source (each annotator, majority, adjudicated), the agreement report and the
baseline report, and the campaign table of all six. With --routing, each level on the fixed
queues and on routed copies of the six datasets (annotation.annotate.routing, k = 3) in turn,
--repeats times each (a level's figure: the median of its runs' p95), new copies for every run
as the fixed queues' annotators get new queues, each with room for 30 answers per annotator
as a fixed queue has: each simulated annotator starts
at the dataset's start page (which asks for the next item by POST) and answers whatever
routing gives; each set-up's capacity narrowed down past the grid (--halvings), and routing's
as a share of the fixed queues'. Prints one line per figure;
writes them to bench/results.json.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_server as server
from bench_server import BASE_DIR, NO_WORKER_RESTARTS, PYTHON, analyze, percentile, report

# Save p95 at most this (s) and no error: the level is served.
TARGET_P95_S = 0.100
# POLIS_BENCH_DB (scripts/lib.sh bench_database) may name another, so that two runs do not meet.
DATABASE_NAME = os.environ.get("POLIS_BENCH_DB", "") if os.environ.get("POLIS_BENCH_DB", "auto") not in (
    "", "auto", "throwaway") else "polis_campaign"
# The benchmark's test set (items; discourse: passages).
SIZES = {"morphosyntax": 421, "numerals": 2653, "wsd": 139, "coreference": 348, "discourse": 63, "commas": 1759}
GOLD_FILES = {"discourse": "dev.SYNTHETIC-gold.jsonl"}
CAMPAIGN_ANNOTATORS = 20
PER_ITEM = 3
QUEUE = 30  # items in each simulated annotator's queue: more than one saves in a run
PASSWORD = "campaign-" + str(random.SystemRandom().randrange(10**12))


def source_files(subtask: str, size: int | None = None) -> tuple[bytes, bytes]:
    """``size`` (default SIZES[subtask]) input lines and their gold, the sample's lines repeated with new ids."""
    folder = BASE_DIR / "demo" / "data" / subtask
    inputs = [json.loads(line) for line in (folder / "dev.inputs.jsonl").read_text().splitlines() if line.strip()]
    gold_file = folder / GOLD_FILES.get(subtask, "dev.gold.jsonl")
    gold = {record["id"]: record for record in map(json.loads, filter(str.strip, gold_file.read_text().splitlines()))}
    input_lines, gold_lines = [], []
    for number in range(size or SIZES[subtask]):
        record = inputs[number % len(inputs)]
        new_id = f"{subtask}-{number + 1:05d}"
        input_lines.append(json.dumps({**record, "id": new_id}, ensure_ascii=False))
        gold_lines.append(json.dumps({**gold[record["id"]], "id": new_id}, ensure_ascii=False))
    return ("\n".join(input_lines) + "\n").encode(), ("\n".join(gold_lines) + "\n").encode()


def import_campaign() -> list:
    from annotation.core.files import SourceFile
    from annotation.datasets.importing import import_dataset

    files = {subtask: source_files(subtask) for subtask in SIZES}
    started = time.perf_counter()
    datasets = [
        import_dataset(
            subtask=subtask, name=f"campaign-{subtask}",
            inputs=SourceFile(f"{subtask}.inputs.jsonl", inputs), gold=SourceFile(f"{subtask}.gold.jsonl", gold),
            gold_synthetic=subtask in GOLD_FILES,
        )
        for subtask, (inputs, gold) in files.items()
    ]
    items = sum(SIZES.values())
    report("import_all_s", f"import of all six subtasks with gold ({items:,} items)", time.perf_counter() - started, "s", 2)
    return datasets


def make_users(prefix: str, count: int) -> list:
    """Annotators sharing one password hash (hashing it once per user would take minutes)."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group, User

    from annotation.core.roles import ANNOTATOR

    password = make_password(PASSWORD)
    users = User.objects.bulk_create(User(username=f"{prefix}-{n:04d}", password=password) for n in range(count))
    group = Group.objects.get_or_create(name=ANNOTATOR)[0]
    User.groups.through.objects.bulk_create(User.groups.through(user_id=user.pk, group_id=group.pk) for user in users)
    return users


def realistic_answer(subtask: str, item: dict, gold: dict, rng: random.Random) -> dict:
    """The demo raters' answer (mostly the gold, sometimes a typical slip); the gold answer
    when the slip is one the item page refuses."""
    from annotation.demo_answers import demo_answer
    from annotation.subtasks.rules import rule_refusals
    from scoring.subtasks import get_subtask

    answer = demo_answer(subtask, item, gold, rng)
    return get_subtask(subtask).gold_answer_fields(gold) if rule_refusals(subtask, answer, item) else answer


def answer_campaign(datasets: list, annotators: list) -> None:
    """Every campaign annotator's realistic answer to every item assigned to them."""
    from django.utils import timezone

    from annotation.answers.normalised import normalised_answer
    from annotation.datasets.assigning import assign
    from annotation.models import Annotation, AnnotationRevision, Assignment

    started = time.perf_counter()
    for dataset in datasets:
        assign(dataset, annotators, PER_ITEM)
    report("assign_s", f"assignment of every dataset to {len(annotators)} annotators, {PER_ITEM} per item",
           time.perf_counter() - started, "s", 2)
    answers, now = [], timezone.now()
    for dataset in datasets:
        rng = random.Random(dataset.name)
        for assignment in Assignment.objects.filter(dataset=dataset).select_related("item__gold"):
            item = assignment.item
            answer = realistic_answer(dataset.subtask, item.payload, item.gold.payload, rng)
            answers.append(Annotation(item=item, annotator_id=assignment.annotator_id, answer=answer,
                                      normalised_answer=normalised_answer(dataset.subtask, answer),
                                      submitted_at=now, status=Annotation.Status.SUBMITTED,
                                      active_ms=rng.randint(4_000, 60_000)))
    created = Annotation.objects.bulk_create(answers)
    AnnotationRevision.objects.bulk_create(
        AnnotationRevision(annotation=a, version=1, answer=a.answer, status=a.status, active_ms=a.active_ms)
        for a in created
    )
    print(f"{len(created):,} answers of the campaign's annotators stored")
    analyze()


def simulated_annotators(datasets: list, count: int, prefix: str) -> dict:
    """`count` annotators, each with a queue of QUEUE items of one subtask (the subtasks in
    turn), logged in (a session each) and the realistic answer to each position of their queue."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from annotation.models import Assignment

    store = import_module(settings.SESSION_ENGINE).SessionStore
    users = make_users(prefix, count)
    items = {dataset.pk: list(dataset.items.select_related("gold").order_by("ordinal")) for dataset in datasets}
    plan, assignments = {}, []
    for number, user in enumerate(users):
        dataset = datasets[number % len(datasets)]
        rng = random.Random(user.username)
        queue = rng.sample(items[dataset.pk], min(QUEUE, len(items[dataset.pk])))
        assignments += [Assignment(dataset=dataset, item=item, annotator=user, position=position)
                        for position, item in enumerate(queue, start=1)]
        session = store()
        session.update({SESSION_KEY: str(user.pk), BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[-1],
                        HASH_SESSION_KEY: user.get_session_auth_hash()})
        session.create()
        plan[user.username] = {
            "dataset": dataset.pk, "session": session.session_key,
            "answers": [realistic_answer(dataset.subtask, item.payload, item.gold.payload, rng) for item in queue],
        }
    Assignment.objects.bulk_create(assignments)
    return plan


def routed_campaign(label: str, annotators: int) -> tuple[list, dict]:
    """Routed copies of the six datasets (``routed-<label>-<subtask>``, k = PER_ITEM, no answers yet),
    each large enough for its share of ``annotators`` to answer QUEUE items apiece (as many as
    a fixed queue holds: a small dataset completed within a run would have its annotators
    wait instead of saving), and the realistic answer to each of their items (dataset id -> item id -> answer), which the
    load generator sends for whichever item routing gives."""
    from annotation.core.files import SourceFile
    from annotation.datasets.importing import import_dataset
    from annotation.datasets.routing import set_routing

    datasets, answers = [], {}
    for subtask in SIZES:
        members = -(-annotators // len(SIZES))
        inputs, gold = source_files(subtask, max(SIZES[subtask], -(-members * QUEUE // PER_ITEM)))
        dataset = import_dataset(subtask=subtask, name=f"routed-{label}-{subtask}", inputs=SourceFile(f"{subtask}.inputs.jsonl", inputs),
                                 gold=SourceFile(f"{subtask}.gold.jsonl", gold), gold_synthetic=subtask in GOLD_FILES)
        dataset = set_routing(dataset, routing=True, answers_per_item=PER_ITEM)
        rng = random.Random(dataset.name)
        answers[str(dataset.pk)] = {str(item.pk): realistic_answer(subtask, item.payload, item.gold.payload, rng)
                                    for item in dataset.items.select_related("gold")}
        datasets.append(dataset)
    return datasets, answers


def routed_annotators(datasets: list, count: int, prefix: str) -> dict:
    """`count` annotators joining the routed datasets (the subtasks in turn), logged in."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from annotation.datasets.assigning import assign

    store = import_module(settings.SESSION_ENGINE).SessionStore
    users = make_users(prefix, count)
    plan = {}
    for offset, dataset in enumerate(datasets):
        members = users[offset::len(datasets)]
        if members:
            assign(dataset, members, PER_ITEM)
    for number, user in enumerate(users):
        session = store()
        session.update({SESSION_KEY: str(user.pk), BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[-1],
                        HASH_SESSION_KEY: user.get_session_auth_hash()})
        session.create()
        plan[user.username] = {"dataset": datasets[number % len(datasets)].pk, "session": session.session_key, "answers": []}
    return plan


def run_load(base_url: str, plan: dict, seconds: float, think_mean: float, clients_per_generator: int,
             answers_by_item: dict | None = None) -> dict:
    """The plan's annotators as clients of bench/load.py, run at once in processes of at most
    `clients_per_generator` clients each: all clients in one process meet at its interpreter
    lock, whose waits would count as the server's latency. The processes' runs begin together,
    once every client of every process has entered and opened its first item page (load.py
    --start-on-stdin): a routed annotator's entry stores their order, and a process still
    entering its clients loaded the server while the others' runs were measured; and the
    first pages, opened by every client at the run's start, doubled its first seconds'
    requests, whose latency then set the p95 of both set-ups. Their figures merged: latencies,
    saves and errors of all; elapsed the longest run's; CPU seconds of all generators."""
    users = list(plan)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(plan, file)
    routed = []
    if answers_by_item:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as by_item:
            json.dump(answers_by_item, by_item)
        routed = ["--answers-by-item", by_item.name]
    try:
        generators = [
            subprocess.Popen(
                [PYTHON, str(BASE_DIR / "bench" / "load.py"), base_url, "0",
                 "--users", ",".join(users[start : start + clients_per_generator]),
                 "--password", PASSWORD, "--answers", file.name, "--seconds", str(seconds),
                 "--think-mean", str(think_mean), "--seed", str(17 + start), "--start-on-stdin", *routed],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )
            for start in range(0, len(users), clients_per_generator)
        ]
        for generator in generators:
            if generator.stdout.readline().strip() != "ready":
                sys.exit(f"the load generator failed ({generator.wait()})")
        for generator in generators:
            generator.stdin.write("go\n")
            generator.stdin.flush()
        runs = []
        for generator in generators:
            output, _ = generator.communicate()
            if generator.returncode:
                sys.exit(f"the load generator failed ({generator.returncode})")
            runs.append(json.loads(output))
    finally:
        os.unlink(file.name)
        if routed:
            os.unlink(routed[1])
    return {
        "page": [seconds for run in runs for seconds in run["page"]],
        "save": [seconds for run in runs for seconds in run["save"]],
        "errors": [error for run in runs for error in run["errors"]],
        "elapsed": max(run["elapsed"] for run in runs),
        "cpu_seconds": sum(run["cpu_seconds"] for run in runs),
        "generators": len(runs),
        "routing_waits": sum(run.get("routing_waits", 0) for run in runs),
    }


def lowest_group_weight(pid: int) -> None:
    """The lowest weight (nice 19) for the autogroup of process ``pid`` (a session's group), where
    the kernel has autogroups (/proc/sys/kernel/sched_autogroup_enabled)."""
    try:
        if Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1":
            Path(f"/proc/{pid}/autogroup").write_text("19")
    except OSError:
        pass


class OrganizerOpeningReports:
    """An organizer opening the reports during the runs (--organizer-reports): a thread that
    asks the API for every dataset's report and the campaign table, one after the other with
    a second between them, while the report worker (``manage.py db_worker``, started beside
    gunicorn) computes what they ask for. With POLIS_REPORT_REFRESH_MINUTES=0 on the servers
    every request that sees new answers starts a computation: the worker is never idle."""

    WORKER_APPLICATION = "polis-report-worker"

    def __init__(self, base_url: str, datasets: list, campaign_id: int, env: dict, gunicorn_workers: set[int]) -> None:
        import threading

        self.base_url, self.env, self.gunicorn_workers = base_url, env, gunicorn_workers
        self.paths = [*(f"/api/datasets/{dataset.pk}/report" for dataset in datasets), f"/api/campaigns/{campaign_id}/report"]
        self.stop, self.times, self.errors = threading.Event(), {path: [] for path in self.paths}, []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self):
        # At the lowest CPU priority, as deploy/polis-worker.service and the demo run it: the
        # annotators' saves first, the reports with the CPU time left.
        # PGAPPNAME names the worker's PostgreSQL session, to tell its backend's CPU from the others'.
        # A session of its own: where the kernel groups processes by session (autogroup), a nice
        # value counts only within the group, and the worker's CPU time would count against the
        # group of gunicorn and the load generator; its own group gets the lowest weight.
        self.worker = subprocess.Popen(["nice", "-n", "19", PYTHON, str(BASE_DIR / "manage.py"), "db_worker", "--interval", "1"],
                                       env={**self.env, "PGAPPNAME": self.WORKER_APPLICATION},
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        lowest_group_weight(self.worker.pid)
        self.cpu_before, self.started = self.cpu(), time.monotonic()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.cpu_after, self.elapsed = self.cpu(), time.monotonic() - self.started
        self.stop.set()
        self.thread.join()
        self.worker.terminate()
        self.worker.wait(timeout=600)

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far by gunicorn's workers, the report worker, its PostgreSQL
        backend and the other backends of the benchmark's database."""
        from django.db import connection
        from load import cpu_by_process

        with connection.cursor() as cursor:
            cursor.execute("SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database()")
            backends = dict(cursor.fetchall())
        processes = cpu_by_process()
        worker_backends = {pid for pid, name in backends.items() if name == self.WORKER_APPLICATION}
        shares = {"gunicorn_workers": self.gunicorn_workers, "report_worker": {self.worker.pid},
                  "report_worker_backend": worker_backends, "other_backends": set(backends) - worker_backends}
        return {name: sum(processes[pid][1] for pid in pids if pid in processes) for name, pids in shares.items()}

    def run(self) -> None:
        import urllib.parse
        import urllib.request

        body = urllib.parse.urlencode({"username": "campaign-organizer", "password": PASSWORD}).encode()
        host = {"Host": "127.0.0.1"}
        token = json.loads(urllib.request.urlopen(urllib.request.Request(
            f"{self.base_url}/api/token/", data=body, headers=host)).read())["token"]
        while not self.stop.is_set():
            for path in self.paths:
                start = time.perf_counter()
                try:
                    with urllib.request.urlopen(urllib.request.Request(
                            self.base_url + path, headers={**host, "Authorization": f"Token {token}"})) as response:
                        response.read()
                except Exception as error:  # noqa: BLE001 (counted, as the annotators' errors)
                    self.errors.append(repr(error))
                self.times[path].append(time.perf_counter() - start)
                if self.stop.wait(1):
                    return


def server_times(access_log: str) -> None:
    """From gunicorn's access log (the time it took to answer each request, %(M)s ms): the
    server time of the saves and of the organizer's report requests, and how much of the two
    workers' time the organizer's requests took."""
    import re

    kinds = {"save": re.compile(r'"POST /annotate/'), "organizer": re.compile(r'"GET /api/(datasets|campaigns)/\d+/report')}
    times = {kind: [] for kind in kinds}
    for line in Path(access_log).read_text().splitlines():
        found = re.search(r" (\d+)ms ", line)
        for kind, pattern in kinds.items():
            if found and pattern.search(line):
                times[kind].append(int(found.group(1)))
    for kind, values in times.items():
        if len(values) < 2:
            continue
        report(f"server_{kind}_p50_ms", f"server time (gunicorn's log), {kind} requests: p50", statistics.median(values), "ms", 0)
        report(f"server_{kind}_p95_ms", f"server time (gunicorn's log), {kind} requests: p95", percentile(values, 0.95), "ms", 0)
        report(f"server_{kind}_total_s", f"server time (gunicorn's log), {kind} requests: sum", sum(values) / 1000, "s")


def pss_mb(pids: list[int]) -> float:
    """Proportional set size of the processes: memory shared by the preloaded workers counted once."""
    total_kb = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                total_kb += int(line.split()[1])
    return total_kb / 1024


def settle() -> None:
    """Before a level's run: the planner's statistics of the rows its set-up made (the routed
    copies' items and orders are new; a fixed queue's assignments are analyzed by assign), as
    autovacuum keeps them on a live server, and a checkpoint, so that the set-up's writes are
    not flushed during the run (a checkpoint then stalled the commits: p99 above 1 s at 100
    annotators, p50 16 ms)."""
    from django.db import connection

    analyze()
    with connection.cursor() as cursor:
        cursor.execute("CHECKPOINT")


def measure_level(
    set_up: str, base_url: str, datasets: list, level: int, seconds: float, think: float, clients_per_generator: int,
    routed: bool = False, run_name: str = "",
) -> tuple[float, int]:
    """One run of ``level`` simulated annotators, its figures reported under
    ``{set_up}_{level}{run_name}_...``; returns its save p95 (s) and its errors. ``routed``: on
    routed copies of the datasets of its own, whose annotators take what routing gives (copies
    answered by the runs before would leave the small datasets nothing free: waits instead of
    saves)."""
    answers_by_item = None
    tag = f"{level}{run_name}"
    if routed:
        level_datasets, answers_by_item = routed_campaign(tag, level)
        plan = routed_annotators(level_datasets, level, f"{set_up}-{tag}")
    else:
        plan = simulated_annotators(datasets, level, f"{set_up}-{tag}")
    settle()
    run = run_load(base_url, plan, seconds, think, clients_per_generator, answers_by_item)
    saves = run["save"]
    if len(saves) < 2:
        sys.exit(f"{set_up}, {level} annotators: {len(saves)} saves; errors: {run['errors'][:3]}")
    label = f"{set_up}, {level} annotators thinking {think:g} s on average, {seconds:g} s{run_name.replace('_', ' ')}"
    key = f"{set_up}_{tag}"
    report(f"{key}_saves_per_s", f"{label}: saves", len(saves) / run["elapsed"], "saves/s")
    report(f"{key}_generator_cpu_s", f"{label}: CPU used by the load generators ({run['generators']} processes)",
           run["cpu_seconds"], "s")
    for share in (0.5, 0.95, 0.99):
        report(f"{key}_save_p{round(share * 100)}_ms", f"{label}: save & next p{round(share * 100)}",
               1000 * (statistics.median(saves) if share == 0.5 else percentile(saves, share)), "ms", 1)
    report(f"{key}_errors", f"{label}: errors", len(run["errors"]), "", 0)
    if routed:
        report(f"{key}_waits", f"{label}: no item available (asked again)", run["routing_waits"], "", 0)
    if run["errors"]:
        print(f"  first errors: {run['errors'][:3]}")
    return percentile(saves, 0.95), len(run["errors"])


def capacity_of(served_by_level: list[tuple[int, bool]]) -> int:
    """The largest level served with every smaller one served too (0: none)."""
    capacity = 0
    for level, served in served_by_level:
        if not served:
            break
        capacity = level
    return capacity


def load_levels(
    set_up: str, base_url: str, datasets: list, levels: list[int], seconds: float, think: float, clients_per_generator: int,
) -> int:
    """Save latency at each number of simulated annotators, one run each; returns the capacity."""
    served_by_level = []
    for level in levels:
        p95, errors = measure_level(set_up, base_url, datasets, level, seconds, think, clients_per_generator)
        served_by_level.append((level, not errors and p95 <= TARGET_P95_S))
        # 20 and 100 annotators are always measured; beyond them the first level not served ends the runs.
        if not served_by_level[-1][1] and level >= 100:
            break
    capacity = capacity_of(served_by_level)
    report(f"{set_up}_capacity_annotators", f"{set_up}: capacity (save p95 <= 100 ms, no error), of {levels}", capacity, "", 0)
    return capacity


def compare_routing(fixed_set_up: str, base_url: str, datasets: list, levels: list[int], seconds: float, think: float,
                    clients_per_generator: int, repeats: int, halvings: int) -> None:
    """Fixed queues and routing at each level, taking turns (fixed, routed, ``repeats`` times):
    a drift of the machine falls on both. A level is served by a set-up when the median of its
    runs' save p95 is at most 100 ms and no run had an error; one 20 s run varies more than the
    two set-ups differ. The runs end at the first level that neither serves. Then each
    set-up's capacity is narrowed down between it and the next level of the grid, which it did
    not serve, by ``halvings`` halvings of that interval (each its middle level, ``repeats``
    runs, the set-ups' middles taking turns): the grid's steps alone made the share jump by a
    step (0.85 or 0.90 for one code on one machine). Reports each set-up's capacity on the grid and
    narrowed down, and routing's as a share of the fixed queues'."""
    set_ups = {fixed_set_up: False, f"{fixed_set_up}_routing": True}

    def runs_of(level: int, taking_turns: list[str]) -> dict[str, list[tuple[float, int]]]:
        runs: dict[str, list[tuple[float, int]]] = {set_up: [] for set_up in taking_turns}
        for repeat in range(1, repeats + 1):
            for set_up in taking_turns:
                runs[set_up].append(measure_level(set_up, base_url, datasets, level, seconds, think,
                                                  clients_per_generator, set_ups[set_up],
                                                  f"_run{repeat}" if repeats > 1 else ""))
        return runs

    def served(set_up: str, level: int, runs: list[tuple[float, int]]) -> bool:
        median_p95 = statistics.median(p95 for p95, _ in runs)
        if repeats > 1:
            report(f"{set_up}_{level}_median_save_p95_ms", f"{set_up}, {level} annotators: median of {repeats} runs' "
                   "save p95", 1000 * median_p95, "ms", 1)
        return median_p95 <= TARGET_P95_S and not any(errors for _, errors in runs)

    served_by_level: dict[str, list[tuple[int, bool]]] = {set_up: [] for set_up in set_ups}
    for level in levels:
        for set_up, runs in runs_of(level, list(set_ups)).items():
            served_by_level[set_up].append((level, served(set_up, level, runs)))
        if level >= 100 and not any(served_by_level[set_up][-1][1] for set_up in set_ups):
            break
    # Each set-up's interval: its capacity on the grid (0: none) and the first level it did
    # not serve (None: it served the grid's top, and its capacity is only a lower bound).
    interval = {}
    for set_up in set_ups:
        capacity = capacity_of(served_by_level[set_up])
        report(f"{set_up}_grid_capacity_annotators", f"{set_up}: capacity on the grid {levels} (median save p95 "
               "<= 100 ms, no error)", capacity, "", 0)
        above = next((level for level, _ in served_by_level[set_up] if level > capacity), None)
        interval[set_up] = (capacity, above)
    for _ in range(halvings):
        for set_up, (capacity, above) in interval.items():
            if above is None or above - capacity < 2:
                continue
            middle = (capacity + above) // 2
            interval[set_up] = (middle, above) if served(set_up, middle, runs_of(middle, [set_up])[set_up]) else (
                capacity, middle)
    for set_up, (capacity, above) in interval.items():
        bound = "the grid's top: a lower bound" if above is None else f"{above} not served"
        report(f"{set_up}_capacity_annotators", f"{set_up}: capacity, {halvings} halvings past the grid ({bound})",
               capacity, "", 0)
    fixed, routed = (capacity for capacity, _ in interval.values())
    report("routing_capacity_share", f"routing's capacity / the fixed queues' ({fixed_set_up})",
           routed / fixed if fixed else 0, "", 2)


def exports_and_reports(datasets: list, annotators: list) -> None:
    """Every source of every dataset exported (each annotator's submission, the majority and
    the adjudicated answers, checked and encoded), its agreement report, its baseline report
    (every source scored with its interval, 1,000 resamples) and the campaign table of all six."""
    from annotation.core.errors import NothingToExport
    from annotation.results.agreement import agreement_report
    from annotation.results.exporting import build_export, build_submission
    from annotation.results.report import campaign_report, dataset_report
    from annotation.results.services import create_campaign

    def timed(key: str, label: str, work) -> None:
        started = time.perf_counter()
        work()
        report(key, label, time.perf_counter() - started, "s", 2)

    for dataset in datasets:
        subtask = dataset.subtask
        started = time.perf_counter()
        lines = sum(len(build_submission(dataset, annotator).to_bytes()) for annotator in annotators)
        report(f"export_{subtask}_s", f"export of {subtask}: {len(annotators)} submissions ({lines:,} bytes)",
               time.perf_counter() - started, "s", 2)
        for source in ("majority", "adjudicated"):
            started = time.perf_counter()
            try:
                size = f"{len(build_export(dataset, source).data):,} bytes"
            except NothingToExport:
                size = "no item settled, nothing to export"
            report(f"export_{source}_{subtask}_s", f"export of {subtask}, {source} ({size})",
                   time.perf_counter() - started, "s", 2)
        timed(f"report_{subtask}_s", f"agreement report of {subtask}", lambda dataset=dataset: agreement_report(dataset))
        timed(f"baseline_report_{subtask}_s", f"baseline report of {subtask} (every source, 1,000 resamples)",
              lambda dataset=dataset: dataset_report(dataset))
    campaign = create_campaign(name="campaign-benchmark", datasets=datasets)
    timed("campaign_report_s", "campaign table of the six datasets (1,000 resamples)", lambda: campaign_report(campaign))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--levels", default="20,100,200,400", help="numbers of simulated annotators (default 20,100,200,400)")
    parser.add_argument("--seconds", type=float, default=20, help="length of each run (default 20)")
    parser.add_argument("--think", type=float, default=2.0, help="mean thinking time, s (default 2)")
    parser.add_argument("--saturation-clients", type=int, default=8, help="clients with no thinking (default 8)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn's workers (default 2)")
    parser.add_argument("--skip-nginx", action="store_true", help="only gunicorn (--workers)")
    parser.add_argument("--results-key", default="campaign", help="the key of bench/results.json for the figures (default campaign)")
    parser.add_argument("--skip-exports", action="store_true", help="no exports and reports timed before the runs")
    parser.add_argument("--organizer-reports", action="store_true",
                        help="an organizer opens every report during the runs, the report worker computing them")
    parser.add_argument("--routing", action="store_true",
                        help="on gunicorn, each level on the fixed queues and on routed copies of the datasets (k = 3) "
                        "in turn, and routing's capacity as a share of the fixed queues'")
    parser.add_argument("--repeats", type=int, default=3,
                        help="with --routing: runs of each level per set-up, taking turns; a level's figure is the "
                        "median of its runs' p95 (default 3)")
    parser.add_argument("--halvings", type=int, default=2,
                        help="with --routing: halvings of the interval between each set-up's capacity on the grid and "
                        "the next level, which it did not serve (default 2)")
    parser.add_argument(
        "--clients-per-generator", type=int, default=100,
        help="simulated annotators per load generator process (default 100: 400 annotators in 4 processes)",
    )
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]

    server.recreate_database(os.environ["DATABASE_URL"], own_name=DATABASE_NAME)
    server.manage("migrate", "--noinput", "-v", "0")
    server.manage("createcachetable")
    server.manage("collectstatic", "--noinput", "-v", "0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    from django.conf import settings

    from tests.servers import gunicorn, nginx, spare_port

    datasets = import_campaign()
    annotators = make_users("campaign", CAMPAIGN_ANNOTATORS)
    answer_campaign(datasets, annotators)
    if not args.skip_exports:
        exports_and_reports(datasets, annotators)

    env = dict(os.environ)
    if args.organizer_reports:
        from annotation.results.services import create_campaign
        from tests.factories import make_user

        make_user("organizer", "campaign-organizer", password=PASSWORD)
        campaign = create_campaign(name="campaign-all", datasets=datasets)
        env["POLIS_REPORT_REFRESH_MINUTES"] = "0"
    access_log = tempfile.NamedTemporaryFile(suffix=".log", delete=False).name
    # The set-up's name in the figures' keys: gunicorn_2_workers by default.
    set_up = f"gunicorn_{args.workers}_workers"
    with gunicorn(env, workers=args.workers, access_log=access_log, options=NO_WORKER_RESTARTS) as served:
        if args.organizer_reports:
            with OrganizerOpeningReports(served.base, datasets, campaign.pk, env, served.worker_pids()) as organizer:
                load_levels(set_up, served.base, datasets, levels, args.seconds, args.think,
                            args.clients_per_generator)
            from annotation.models import StoredReport

            for name in organizer.cpu_before:
                report(f"organizer_run_cpu_{name}_s", f"during the runs ({organizer.elapsed:.0f} s): CPU used by {name}",
                       organizer.cpu_after[name] - organizer.cpu_before[name], "s")
            times = [seconds for path_times in organizer.times.values() for seconds in path_times]
            report("organizer_report_requests", "the organizer's report requests during the runs", len(times), "", 0)
            report("organizer_report_p95_ms", "the organizer's report requests: p95", 1000 * percentile(times, 0.95), "ms", 1)
            for path, path_times in organizer.times.items():
                name = path.strip("/").replace("/", "_")
                report(f"organizer_{name}_p50_ms", f"the organizer's requests of {path}: p50",
                       1000 * statistics.median(path_times), "ms", 1)
                report(f"organizer_{name}_max_ms", f"the organizer's requests of {path}: max", 1000 * max(path_times), "ms", 1)
            report("organizer_report_errors", "the organizer's report requests: errors", len(organizer.errors), "", 0)
            report("reports_computed", "reports computed by the worker during the runs",
                   StoredReport.objects.filter(status=StoredReport.Status.DONE).count(), "", 0)
        else:
            if args.routing:
                compare_routing(set_up, served.base, datasets, levels, args.seconds, args.think, args.clients_per_generator,
                                args.repeats, args.halvings)
            else:
                load_levels(set_up, served.base, datasets, levels, args.seconds, args.think,
                            args.clients_per_generator)
        report(f"{set_up}_pss_mb", f"gunicorn, master and {args.workers} workers after the runs: PSS",
               pss_mb([served.pid, *served.worker_pids()]), "MB")
        report(f"{set_up}_workers_pss_mb", f"gunicorn's {args.workers} workers after the runs: PSS",
               pss_mb(sorted(served.worker_pids())), "MB")
        server_times(access_log)
        os.unlink(access_log)
        plan = simulated_annotators(datasets, args.saturation_clients, "saturation")
        run = run_load(served.base, plan, args.seconds, 0, args.clients_per_generator)
        report("saturation_saves_per_s", f"saturation: {args.saturation_clients} annotators, no thinking: saves",
               len(run["save"]) / run["elapsed"], "saves/s")
        report("saturation_errors", "saturation: errors", len(run["errors"]), "", 0)
    if not args.skip_nginx:
        ports = [spare_port(), spare_port()]
        with (
            gunicorn({**env, "POLIS_PROXY": "1"}, workers=1, port=ports[0], options=NO_WORKER_RESTARTS),
            gunicorn({**env, "POLIS_PROXY": "1"}, workers=1, port=ports[1], options=NO_WORKER_RESTARTS),
            nginx(ports, static=Path(settings.STATIC_ROOT), max_body_mb=settings.POLIS_MAX_UPLOAD_BYTES // 2**20) as base,
        ):
            load_levels("nginx_2_instances", base, datasets, levels, args.seconds, args.think,
                        args.clients_per_generator)
    server.save_results(
        {"sizes": SIZES, "campaign_annotators": CAMPAIGN_ANNOTATORS, "annotators_per_item": PER_ITEM, "levels": levels,
         "seconds_per_run": args.seconds, "think_mean_s": args.think, "queue_per_simulated_annotator": QUEUE,
         "nginx_set_up": "two gunicorn instances of 1 worker each",
         "clients_per_generator_process": args.clients_per_generator, "gunicorn_workers": args.workers},
        key=args.results_key,
    )


if __name__ == "__main__":
    main()
