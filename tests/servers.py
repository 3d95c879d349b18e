"""Real server processes for the tests that need them: gunicorn with the repository's
configuration, `manage.py` run against a database of the test's own, and a throwaway
PostgreSQL cluster (initdb + pg_ctl as user postgres on a spare port, as scripts/lib.sh makes
one), so that an outage can be staged without touching the shared server."""

from __future__ import annotations

import glob
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


@contextmanager
def gunicorn(env: dict[str, str], workers: int = 2) -> Iterator[str]:
    """gunicorn with deploy/gunicorn.conf.py on a spare port, until /healthz answers 200."""
    port = spare_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "polis_site.wsgi",
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--access-logfile", "/dev/null"],
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
        yield base
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
