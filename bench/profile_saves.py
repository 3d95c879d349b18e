"""Server CPU per save, in-process: save & next through the item page (htmx) and
POST /api/annotations/ with a token, for each of the six subtasks.

No HTTP server: each request is a WSGI environ handed to Django's WSGI handler, as gunicorn
hands it over, with the session cookie and CSRF token of a logged-in annotator (CSRF checked).
Reported per flow and subtask: the CPU time (time.process_time) of this process per request,
mean and median, so that other work on the machine skews the figure little, and apart from it
the CPU time of this process's PostgreSQL backend per save (<flow>_<subtask>_database_ms, from
/proc: PostgreSQL on this machine; measured from the run's first request, its setup left out).
--gunicorn sends the same requests to gunicorn (deploy/gunicorn.conf.py, one worker) and
counts its worker's CPU instead (in ticks of 10 ms: use a few hundred saves). --routing saves
through the item page of routed copies of the datasets (k = 3), made anew for each run, whose
annotators answer whatever routing gives them, beside --others annotators holding reservations.

    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/polis_profile SECRET_KEY=...
    python manage.py collectstatic --noinput     # DEBUG is off: the pages name collected files
    python bench/profile_saves.py --setup        # the campaign's datasets, once (drops the database)
    python bench/profile_saves.py [--saves 60] [--subtasks commas,...] [--flows page,api]
                                  [--profile page|api [--sort tottime] [--callees PATTERN]] [--gunicorn]
                                  [--routing [--others 60]]

--setup imports the six subtasks (bench/bench_campaign.py's sample items) into the database
named by DATABASE_URL, which must be polis_profile or end with _profile. Every later run
makes new annotators with queues of their own, so runs can be repeated on the same database.
"""

import argparse
import cProfile
import functools
import io
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
sys.path.insert(0, str(BASE_DIR / "bench"))

SUBTASKS = ("commas", "numerals", "morphosyntax", "wsd", "coreference", "discourse")


def environ(method: str, path: str, body: bytes = b"", headers: dict | None = None) -> dict:
    path, _, query = path.partition("?")
    env = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "SCRIPT_NAME": "",
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "CONTENT_LENGTH": str(len(body)),
    }
    for name, value in (headers or {}).items():
        key = name.upper().replace("-", "_")
        env[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"] = value
    return env


class Response:
    """One request and its response: handed to Django's WSGI handler in this process, or sent to gunicorn."""

    def __init__(self, handler, env):
        self.headers = {}
        if isinstance(handler, Gunicorn):
            self.status, self.headers, self.body = handler.send(env)
            return

        def start_response(status, headers, exc_info=None):
            self.status = int(status.split()[0])
            self.headers = {name.lower(): value for name, value in headers}

        result = handler(env, start_response)
        self.body = b"".join(result).decode()
        if hasattr(result, "close"):
            result.close()


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Gunicorn:
    """gunicorn with deploy/gunicorn.conf.py and one worker; its worker's CPU time from /proc."""

    def __init__(self):
        import http.client
        import socket
        import subprocess

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "polis_site.wsgi",
             "--bind", f"127.0.0.1:{self.port}", "--workers", "1", "--log-level", "warning",
             "--access-logfile", "/dev/null"], cwd=BASE_DIR,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("gunicorn did not start") from None
                time.sleep(0.1)
        time.sleep(0.5)
        self.worker = int(Path(f"/proc/{self.server.pid}/task/{self.server.pid}/children").read_text().split()[0])
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.worker}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def send(self, env):
        import http.client

        headers = {key[5:].replace("_", "-"): value for key, value in env.items() if key.startswith("HTTP_")}
        if "CONTENT_TYPE" in env:
            headers["Content-Type"] = env["CONTENT_TYPE"]
        path = env["PATH_INFO"] + ("?" + env["QUERY_STRING"] if env["QUERY_STRING"] else "")
        body = env["wsgi.input"].getvalue() or None
        try:
            self.connection.request(env["REQUEST_METHOD"], path, body=body, headers=headers)
            response = self.connection.getresponse()
        except (http.client.HTTPException, OSError):
            self.connection.close()
            self.connection.request(env["REQUEST_METHOD"], path, body=body, headers=headers)
            response = self.connection.getresponse()
        content = response.read().decode()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, content

    def close(self):
        self.server.terminate()
        self.server.wait(timeout=30)


def setup() -> None:
    import bench_server as server

    url = os.environ["DATABASE_URL"]
    name = urlsplit(url).path.lstrip("/")
    if not (name == "polis_profile" or name.endswith("_profile")):
        sys.exit(f"refusing to drop database {name!r}")
    server.recreate_database(url, own_name=name)
    server.manage("migrate", "--noinput", "-v", "0")
    server.manage("createcachetable")
    import django

    django.setup()
    from bench_campaign import import_campaign

    import_campaign()


def new_annotator(tag: str):
    """A new annotator, logged in: the user and their session's key."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import Group, User

    from annotation.core.roles import ANNOTATOR

    user = User.objects.create_user(f"profile-{tag}-{time.time_ns()}", password=None)
    user.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session.update({SESSION_KEY: str(user.pk), BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[-1],
                    HASH_SESSION_KEY: user.get_session_auth_hash()})
    session.create()
    return user, session.session_key


def annotator_with_queue(dataset, length: int, tag: str):
    """A new annotator with a queue of `length` items of the dataset, logged in; the realistic answers."""
    import random

    from bench_campaign import realistic_answer

    from annotation.models import Assignment

    user, session_key = new_annotator(tag)
    rng = random.Random(tag)
    items = list(dataset.items.select_related("gold").order_by("?")[:length])
    Assignment.objects.bulk_create(
        Assignment(dataset=dataset, item=item, annotator=user, position=position)
        for position, item in enumerate(items, start=1)
    )
    answers = [realistic_answer(dataset.subtask, item.payload, item.gold.payload, rng) for item in items]
    return user, session_key, items, answers


def routed_annotator(dataset, others: int, tag: str):
    """A new annotator of a routed dataset, logged in, and `others` annotators of it each holding
    the reservation of their first item (the items in progress a campaign has)."""
    from bench_campaign import PER_ITEM

    from annotation.annotate.routing import next_item
    from annotation.datasets.assigning import assign

    users = [new_annotator(f"{tag}-other{number}")[0] for number in range(others)]
    user, session_key = new_annotator(tag)
    assign(dataset, [*users, user], PER_ITEM)
    for other in users:
        next_item(other, dataset.pk)
    return user, session_key


def database_cpu() -> float:
    """CPU seconds used so far by this process's PostgreSQL backend (0 on another database)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    fields = Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def clock(handler) -> float:
    return handler.cpu() if isinstance(handler, Gunicorn) else time.process_time()


def page_saves(handler, dataset, saves: int, profiler=None, routed: dict | None = None) -> tuple[list[float], float]:
    """CPU seconds of each save & next through the item page (htmx), the next item included,
    and of this process's PostgreSQL backend over all of them.
    ``routed``: the dataset is routed, with the answer to each of its items (by id) and the
    number of other annotators to hold reservations."""
    from load import field, item_id  # the page as the load generator reads it

    if routed is None:
        _, session_key, _, answers = annotator_with_queue(dataset, saves + 1, f"page-{dataset.subtask}")
        path = urlsplit(Response(handler, environ("GET", f"/annotate/{dataset.pk}/", headers={
            "Cookie": f"sessionid={session_key}"})).headers["location"]).path
    else:
        from annotation.annotate.routing import next_item

        user, session_key = routed_annotator(dataset, routed["others"], f"routed-{dataset.subtask}")
        path = f"/annotate/{dataset.pk}/{next_item(user, dataset.pk).position}/"
    cookie = f"sessionid={session_key}"
    page = Response(handler, environ("GET", path, headers={"Cookie": cookie}))
    csrf = page.headers["set-cookie"].split("csrftoken=", 1)[1].split(";", 1)[0] if "set-cookie" in page.headers else None
    cookie += f"; csrftoken={csrf}"
    body = page.body
    cpu, database_before = [], database_cpu()
    for _ in range(saves):
        token = field(body, "csrfmiddlewaretoken")
        if routed is None:
            answer = answers[int(path.rstrip("/").rsplit("/", 1)[1]) - 1]
        else:
            answer = routed["answers"][item_id(body)]
        fields = {"csrfmiddlewaretoken": token, "answer": json.dumps(answer), "version": field(body, "version"),
                  "clock": field(body, "clock"), "intent": "submit", "active_ms": "1500"}
        headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true",
                   "HX-Current-URL": f"http://127.0.0.1{path}", "X-CSRFToken": token}
        encoded = urlencode(fields).encode()
        if profiler:
            profiler.enable()
        started = clock(handler)
        response = Response(handler, environ("POST", path, encoded, headers))
        if response.status == 422 and 'name="confirm"' in response.body:
            encoded = urlencode({**fields, "confirm": "1"}).encode()
            response = Response(handler, environ("POST", path, encoded, headers))
        cpu.append(clock(handler) - started)
        if profiler:
            profiler.disable()
        assert response.status == 200, (response.status, response.body[:500])
        path = response.headers.get("hx-push-url")
        if path is None:
            break
        body = response.body
    return cpu, database_cpu() - database_before


def api_saves(handler, dataset, saves: int, profiler=None) -> tuple[list[float], float]:
    """CPU seconds of each POST /api/annotations/ with a token, and of this process's
    PostgreSQL backend over all of them."""
    from rest_framework.authtoken.models import Token

    user, _, items, answers = annotator_with_queue(dataset, saves, f"api-{dataset.subtask}")
    token = Token.objects.create(user=user)
    headers = {"Authorization": f"Token {token.key}", "Content-Type": "application/json", "Accept": "application/json"}
    cpu, database_before = [], database_cpu()
    for item, answer in zip(items, answers):
        body = json.dumps({"item": item.pk, "answer": answer, "status": "submitted", "version": 0,
                           "active_ms": 1500}).encode()
        if profiler:
            profiler.enable()
        started = clock(handler)
        response = Response(handler, environ("POST", "/api/annotations/", body, headers))
        if response.status == 422 and "needs_confirmation" in response.body:
            body = json.dumps({**json.loads(body), "confirmed": True}).encode()
            response = Response(handler, environ("POST", "/api/annotations/", body, headers))
        cpu.append(clock(handler) - started)
        if profiler:
            profiler.disable()
        assert response.status == 201, (response.status, response.body[:500])
    return cpu, database_cpu() - database_before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setup", action="store_true", help="make the campaign (drops and makes the database)")
    parser.add_argument("--saves", type=int, default=60, help="saves per subtask and flow (default 60)")
    parser.add_argument("--subtasks", default=",".join(SUBTASKS))
    parser.add_argument("--flows", default="page,api", help="page, api or both (default)")
    parser.add_argument("--profile", choices=("page", "api"), help="cProfile this flow; print the top functions")
    parser.add_argument("--sort", default="cumulative", help="cProfile sort key (default cumulative)")
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument("--callees", help="print the callees of the functions matching this (a pstats pattern)")
    parser.add_argument("--gunicorn", action="store_true", help="send the requests to gunicorn (one worker) "
                        "and count its worker's CPU time instead")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--routing", action="store_true", help="save & next on routed copies of the datasets "
                        "(the page flow only)")
    parser.add_argument("--others", type=int, default=60,
                        help="--routing: other annotators of each copy holding a reservation (default 60)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    if args.setup:
        setup()
        return
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler

    from annotation.models import Dataset

    handler = Gunicorn() if args.gunicorn else WSGIHandler()
    if args.routing:
        from bench_campaign import routed_campaign

        if args.flows != "page":
            parser.error("--routing saves through the item page only: give --flows page")
        copies, answers = routed_campaign(f"profile-{time.time_ns()}", args.others)
        datasets = {dataset.subtask: dataset for dataset in copies}
    else:
        datasets = {dataset.subtask: dataset for dataset in Dataset.objects.filter(pool_of=None, routing=False)}
    profiler = cProfile.Profile(time.process_time) if args.profile else None
    figures = {}
    for subtask in args.subtasks.split(","):
        dataset = datasets[subtask]
        page = page_saves
        if args.routing:
            page = functools.partial(page_saves, routed={"answers": answers[str(dataset.pk)], "others": args.others})
        flows = [(flow, run) for flow, run in (("page", page), ("api", api_saves)) if flow in args.flows]
        # The first requests of a process load templates, translations and prepare statements.
        for _, run in flows:
            run(handler, dataset, 3)
        for flow, run in flows:
            cpu, database = run(handler, dataset, args.saves, profiler if args.profile == flow else None)
            figures[f"{flow}_{subtask}_ms"] = round(1000 * statistics.mean(cpu), 3)
            figures[f"{flow}_{subtask}_median_ms"] = round(1000 * statistics.median(cpu), 3)
            if not args.gunicorn:  # gunicorn's workers have backends of their own
                figures[f"{flow}_{subtask}_database_ms"] = round(1000 * database / len(cpu), 3)
    for flow in args.flows.split(","):
        means = [figures[f"{flow}_{subtask}_ms"] for subtask in args.subtasks.split(",")]
        figures[f"{flow}_mean_ms"] = round(statistics.mean(means), 3)
    if args.gunicorn:
        handler.close()
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    if profiler:
        stats = pstats.Stats(profiler)
        stats.sort_stats(args.sort)
        if args.callees:
            stats.print_callees(args.callees)
        else:
            stats.print_stats(args.top)


if __name__ == "__main__":
    main()
