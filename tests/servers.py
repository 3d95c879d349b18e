"""Real server processes for the tests that need them: gunicorn with the repository's
configuration, `manage.py` run against a database of the test's own, and a throwaway
PostgreSQL cluster (initdb + pg_ctl as user postgres on a spare port, as scripts/lib.sh makes
one), so that an outage can be staged without touching the shared server."""

from __future__ import annotations

import glob
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def spare_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {
        name: value for name, value in os.environ.items()
        if name not in {"DEBUG", "POLIS_HTTPS", "POLIS_PROXY", "DJANGO_SETTINGS_MODULE"}
    }
    # The tests' settings: production's, with static files served without `collectstatic`.
    return {**env, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "tests.settings", **extra}


def manage(env: dict[str, str], *args: str, timeout: float = 120) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def get_status(url: str, timeout: float = 5) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


# Made in the server's database by `manage.py shell`: annotators with a commas dataset each.
SETUP = """
import json
from rest_framework.authtoken.models import Token
from annotation.datasets.importing import SourceFile, import_dataset
from tests.factories import assign_in_order, make_user
from tests.security.conftest import sample_records
records = [{**sample_records("commas", 1)[0], "id": f"c{n}"} for n in range(%(items)d)]
data = "".join(json.dumps(record) + "\\n" for record in records).encode()
dataset = import_dataset(subtask="commas", name="load", inputs=SourceFile("in.jsonl", data))
tokens = {}
for number in range(%(annotators)d):
    user = make_user("annotator", username=f"a{number}")
    assign_in_order(dataset, user)
    tokens[user.username] = Token.objects.create(user=user).key
print(json.dumps({"dataset": dataset.pk, "tokens": tokens}))
"""


def set_up(env: dict, annotators: int, items: int) -> dict:
    """A migrated database with `annotators` annotators (a0, a1, ...), each assigned every item of
    one commas dataset of `items` items, and an API token each."""
    manage(env, "migrate", "--noinput", "-v", "0")
    return json.loads(manage(env, "shell", "-c", SETUP % {"annotators": annotators, "items": items}).splitlines()[-1])


@dataclass(frozen=True)
class Served:
    base: str  # http://127.0.0.1:<port>
    pid: int  # gunicorn's master process

    def worker_pids(self) -> set[int]:
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text()
        return {int(pid) for pid in children.split()}


@contextmanager
def gunicorn(
    env: dict[str, str], workers: int = 2, port: int | None = None, access_log: str = "/dev/null",
    options: tuple[str, ...] = (),
) -> Iterator[Served]:
    """gunicorn with deploy/gunicorn.conf.py (and command-line ``options``, which win over it)
    on a spare port (or `port`), until /healthz answers 200."""
    port = port or spare_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "polis_site.wsgi",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--access-logfile", access_log, *options],
        cwd=BASE_DIR, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if get_status(base + "/healthz", timeout=2) == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.2)
        yield Served(base, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)


class ThrowawayPostgres:
    """A PostgreSQL cluster of its own, in a temporary folder; start(), stop(), remove()."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        assert found, "PostgreSQL's initdb is not installed (apt-get install -y postgresql)"
        self.bin = Path(found[-1]).parent
        self.folder = Path(tempfile.mkdtemp(prefix="polis-outage-pg-"))
        self.port = spare_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_postgres:
            shutil.chown(self.folder, "postgres")
        self._run("initdb", "-D", str(self.folder / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(
            [*self.as_postgres, str(self.bin / program), *args],
            cwd=self.folder, check=True, capture_output=True, timeout=60,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-l", str(self.folder / "server.log"), "-w", "-o", options, "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.folder, ignore_errors=True)


# A request that got no whole answer: a refused or reset connection (OSError), or one cut
# mid-answer by a killed worker (http.client.IncompleteRead, a HTTPException). Either way the
# save is unacknowledged and is sent again.
CUT_RESPONSES = (OSError, http.client.HTTPException)


class SaveAndNext:
    """An annotator's browser doing save & next through the item page, as its script does
    (bench/load.py's session), that sends a save again after any error, as the page's autosave
    retry does: a connection cut, a 5xx. `acknowledged` maps each position to the version the
    server acknowledged for it; `errors` counts the statuses (or exceptions) seen on the way."""

    ANSWER = json.dumps({"commas": [1], "optional": []})

    def __init__(self, base: str, dataset: int, username: str, password: str = "pass-Polis-123"):
        from bench.load import Session

        self.session = Session(base)
        self.session.log_in(username, password)
        self.dataset = dataset
        self.username = username
        self.position = 1
        self.page: str | None = None
        self.acknowledged: dict[int, int] = {}
        self.errors: dict[str, int] = {}

    def _seen(self, error: str) -> None:
        self.errors[error] = self.errors.get(error, 0) + 1

    def _page(self, path: str) -> str:
        while True:
            try:
                response, page, _ = self.session.request("GET", path)
            except CUT_RESPONSES as error:
                self._seen(type(error).__name__)
                self.session.connection.close()
                time.sleep(0.1)
                continue
            if response.status == 200:
                return page
            self._seen(str(response.status))
            time.sleep(0.1)

    def save_and_next(self) -> None:
        from bench.load import field

        path = f"/annotate/{self.dataset}/{self.position}/"
        page = self.page or self._page(path)
        token = field(page, "csrfmiddlewaretoken")
        fields = {"csrfmiddlewaretoken": token, "answer": self.ANSWER, "version": field(page, "version"),
                  "clock": field(page, "clock"), "intent": "submit", "active_ms": "100"}
        headers = {"HX-Request": "true", "X-CSRFToken": token}
        while True:  # the same save until it is acknowledged
            try:
                response, body, _ = self.session.request("POST", path, fields, headers)
            except CUT_RESPONSES as error:
                self._seen(type(error).__name__)
                self.session.connection.close()
                time.sleep(0.1)
                continue
            if response.status == 200 and response.getheader("X-Polis-Version"):
                break
            assert response.status >= 500, f"{self.username} {path}: {response.status} {body[:300]}"
            self._seen(str(response.status))
            time.sleep(0.1)
        self.acknowledged[self.position] = int(response.getheader("X-Polis-Version"))
        self.position += 1
        self.page = body if response.getheader("HX-Push-Url") else None

    def run_until(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            self.save_and_next()


def stored_saves(database_url: str, dataset: int) -> dict[tuple[str, int], tuple[int, str, list[int]]]:
    """(annotator, position) -> (version, status, versions of its revisions) of every stored answer."""
    import psycopg

    with psycopg.connect(database_url) as connection:
        rows = connection.execute(
            """SELECT u.username, s.position, a.version, a.status,
                      ARRAY(SELECT r.version FROM annotation_annotationrevision r
                            WHERE r.annotation_id = a.id ORDER BY r.version)
               FROM annotation_annotation a
               JOIN annotation_assignment s ON s.item_id = a.item_id AND s.annotator_id = a.annotator_id
               JOIN auth_user u ON u.id = a.annotator_id
               WHERE s.dataset_id = %s""",
            [dataset],
        ).fetchall()
    return {(username, position): (version, status, revisions) for username, position, version, status, revisions in rows}


NGINX_CONFIG = BASE_DIR / "deploy" / "nginx.conf"


@contextmanager
def nginx(upstreams: list[int], static: Path, max_body_mb: int) -> Iterator[str]:
    """Debian's nginx with deploy/nginx.conf, as a child process (not a daemon) with its pid,
    logs and temp files in a temp folder, listening on a spare port, its upstreams on the
    given ports; until it answers."""
    config = NGINX_CONFIG.read_text()
    port = spare_port()
    replacements = {
        "server 127.0.0.1:8001 ": f"server 127.0.0.1:{upstreams[0]} ",
        "server 127.0.0.1:8002 ": f"server 127.0.0.1:{upstreams[1]} ",
        "listen 80;": f"listen 127.0.0.1:{port};",
        "alias /srv/polis/static/;": f"alias {static}/;",
        "client_max_body_size 64m;": f"client_max_body_size {max_body_mb}m;",
    }
    for deployed, tested in replacements.items():
        assert config.count(deployed) == 1, deployed
        config = config.replace(deployed, tested)
    folder = Path(tempfile.mkdtemp(prefix="polis-nginx-"))
    (folder / "polis.conf").write_text(config)
    temp_paths = "".join(
        f"    {kind}_temp_path {folder}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (folder / "nginx.conf").write_text(
        f"daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log;\n"
        + ("user root;\n" if os.geteuid() == 0 else "")
        # Each client holds a connection and its request another to an instance: 400 simulated
        # annotators need more than 800 (256 reset them).
        + "events { worker_connections 4096; }\n"
        f"http {{\n    include /etc/nginx/mime.types;\n    access_log {folder}/access.log;\n{temp_paths}"
        f"    include {folder}/polis.conf;\n}}\n"
    )
    server = subprocess.Popen(["nginx", "-c", str(folder / "nginx.conf"), "-p", str(folder)], cwd=folder)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                error_log = folder / "error.log"
                assert server.poll() is None and time.monotonic() < deadline, (
                    error_log.read_text() if error_log.exists() else "nginx did not start"
                )
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)
