"""Load generator of the server benchmark: annotators working through their commas queue.

Run as its own process (standard library only), so that it shares no interpreter with the
server. Each client logs in through the login form, GETs its first item page, then repeats
what the item page does: POST "save & next" as htmx sends it (form fields of #answer-form,
the CSRF header, HX-Request), whose reply is the next item's area (HX-Push-Url: its URL),
the form fields of which the next save sends. Clients are closed loops: each waits for its
answer before sending the next request.

Prints one JSON object: latencies in seconds ("page": the first item pages; "save": save & next,
the next item included), "elapsed", its own "cpu_seconds",
"errors", and with --cpu-snapshots every process's CPU time at the start and end of the run.
"""

import argparse
import http.client
import json
import re
import sys
import threading
import os
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

# Every bench item has marker [1]; putting a comma there is a valid answer for all of them.
ANSWER = json.dumps({"commas": [1], "optional": []})
FIELD = {
    name: re.compile(rf'name="{name}"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="{name}"')
    for name in ("csrfmiddlewaretoken", "version", "clock")
}


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_by_process() -> dict[int, tuple[str, float]]:
    """Every process's command line and CPU seconds used so far (user + system), from /proc."""
    processes = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state is field 3, utime 14, stime 15
        processes[int(entry.name)] = (command, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    return processes


class Refused(Exception):
    pass


class Session:
    """One browser-like client: a keep-alive connection (reopened when the server closes it) and cookies."""

    def __init__(self, base_url: str):
        parts = urlsplit(base_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, fields: dict | None = None, headers: dict | None = None):
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if fields is not None:
            body = urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.perf_counter()
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            content = response.read()
        except (http.client.HTTPException, OSError):
            # The server closed a kept-alive connection: one retry on a new one.
            self.connection.close()
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            content = response.read()
        seconds = time.perf_counter() - started
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response, content.decode("utf-8", "replace"), seconds

    def log_in(self, username: str, password: str) -> None:
        response, page, _ = self.request("GET", "/accounts/login/")
        token = field(page, "csrfmiddlewaretoken")
        response, _, _ = self.request(
            "POST",
            "/accounts/login/",
            {"csrfmiddlewaretoken": token, "username": username, "password": password, "next": "/"},
        )
        if response.status != 302 or "sessionid" not in self.cookies:
            raise Refused(f"login of {username} refused ({response.status})")


def field(page: str, name: str) -> str:
    found = FIELD[name].search(page)
    if not found:
        raise Refused(f"no {name} in the page")
    return found.group(1) if found.group(1) is not None else found.group(2)


class Annotator:
    """Works through one queue: item page, save & next, next item page, ..."""

    def __init__(self, base_url: str, dataset: int, username: str, password: str):
        self.session = Session(base_url)
        self.session.log_in(username, password)
        response, _, _ = self.session.request("GET", f"/annotate/{dataset}/")
        if response.status != 302:
            raise Refused(f"{username}: no queue in dataset {dataset} ({response.status})")
        self.path = urlsplit(response.getheader("Location")).path
        self.page: str | None = None  # the item's page or area, once the last save brought it
        self.done = False

    def item(self, page_times: list[float], save_times: list[float]) -> None:
        page = self.page
        if page is None:
            response, page, seconds = self.session.request("GET", self.path)
            if response.status != 200:
                raise Refused(f"GET {self.path}: {response.status}")
            page_times.append(seconds)
        token = field(page, "csrfmiddlewaretoken")
        fields = {
            "csrfmiddlewaretoken": token,
            "answer": ANSWER,
            "version": field(page, "version"),
            "clock": field(page, "clock"),
            "intent": "submit",
            "active_ms": "1500",
        }
        headers = {
            "HX-Request": "true",
            "HX-Current-URL": self.session.origin + self.path,
            "X-CSRFToken": token,
        }
        response, body, seconds = self.session.request("POST", self.path, fields, headers)
        next_path = response.getheader("HX-Push-Url") or response.getheader("HX-Redirect")
        if response.status != 200 or not next_path:
            raise Refused(f"POST {self.path}: {response.status} {body[:300]}")
        save_times.append(seconds)
        self.path = next_path
        self.page = body if response.getheader("HX-Push-Url") else None
        self.done = self.path.endswith("/done/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("base_url")
    parser.add_argument("dataset", type=int)
    parser.add_argument("--users", required=True, help="comma-separated usernames, one client each")
    parser.add_argument("--password", required=True)
    parser.add_argument("--items", type=int, help="items per client (else --seconds)")
    parser.add_argument("--seconds", type=float, help="run every client this long")
    parser.add_argument("--warmup-items", type=int, default=0, help="items per client not measured")
    parser.add_argument(
        "--cpu-snapshots", action="store_true", help="report every process's CPU time at the start and end of the run"
    )
    args = parser.parse_args()

    annotators = [Annotator(args.base_url, args.dataset, user, args.password) for user in args.users.split(",")]
    for annotator in annotators:
        for _ in range(args.warmup_items):
            annotator.item([], [])

    page_times: list[float] = []
    save_times: list[float] = []
    errors: list[str] = []
    start = threading.Barrier(len(annotators) + 1)
    deadline = [0.0]

    def work(annotator: Annotator) -> None:
        start.wait()
        done = 0
        try:
            while not annotator.done:
                if args.items is not None and done >= args.items:
                    break
                if args.seconds is not None and time.perf_counter() >= deadline[0]:
                    break
                annotator.item(page_times, save_times)  # list.append is atomic under the GIL
                done += 1
        except Exception as error:  # reported, and the run counts as failed
            errors.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=work, args=(annotator,)) for annotator in annotators]
    for thread in threads:
        thread.start()
    cpu_before = cpu_by_process() if args.cpu_snapshots else {}
    own_cpu_before = time.process_time()
    began = time.perf_counter()
    deadline[0] = began + (args.seconds or 0)
    start.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    own_cpu = time.process_time() - own_cpu_before
    cpu_after = cpu_by_process() if args.cpu_snapshots else {}
    exhausted = sum(annotator.done for annotator in annotators)
    json.dump(
        {
            "page": page_times,
            "save": save_times,
            "elapsed": elapsed,
            "cpu_seconds": own_cpu,
            "cpu_before": cpu_before,
            "cpu_after": cpu_after,
            "errors": errors,
            "queues_exhausted": exhausted,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
