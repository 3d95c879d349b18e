"""Load generator of the server benchmark: annotators working through their commas queue
(through the item page, or with --api through the REST API).

Run as its own process (standard library only), so that it shares no interpreter with the
server. Each client logs in through the login form, GETs its first item page, then repeats
what the item page does: POST "save & next" as htmx sends it (form fields of #answer-form,
the CSRF header, HX-Request), whose reply is the next item's area (HX-Push-Url: its URL),
the form fields of which the next save sends. Clients are closed loops: each waits for its
answer before sending the next request.

Prints one JSON object (after the line "ready" with --start-on-stdin): latencies in seconds
("page": the first item pages; "save": save & next, the next item included), "elapsed", its
own "cpu_seconds",
"errors", "routing_waits" (a routed dataset had no item for a client: it asked again after the
waiting page's interval, as the page does), and with --cpu-snapshots every process's CPU time at the start and end of the run.
"""

import argparse
import gzip
import http.client
import json
import os
import random
import re
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

# Every bench item has marker [1]; putting a comma there is a valid answer for all of them.
ANSWER = json.dumps({"commas": [1], "optional": []})
# The waiting page's interval between its checks for an item (htmx's trigger).
RECHECK = re.compile(r'hx-trigger="[^"]*every (\d+)s"')
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
            fields = stat_fields(int(entry.name))
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        processes[int(entry.name)] = (command, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    return processes


def stat_fields(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after "pid (comm)": [0] is field 3 (state), [1] the parent's
    pid, [11] and [12] utime and stime, [13] and [14] cutime and cstime."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def ended_children_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the process's children that have ended: what a server that
    forks a process per connection (PostgreSQL's postmaster) used in the connections closed so
    far, which cpu_by_process no longer sees."""
    fields = stat_fields(pid)
    return (int(fields[13]) + int(fields[14])) / CLOCK_TICKS


def parent_pid(pid: int) -> int:
    return int(stat_fields(pid)[1])


def item_id(page: str) -> str:
    """The id of the item of an item page or area (its answer's storage key names it)."""
    return re.search(r'"storageKey": "\d+:(\d+)"', page).group(1)


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
        """A request as a browser sends it: the session's cookies, a form body (or none)."""
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if fields is not None:
            body = urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        response, content, seconds = self.send(method, path, body, headers)
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response, content, seconds

    def request_json(self, method: str, path: str, body: str | None = None, headers: dict | None = None):
        """A request as an API client sends it: no cookies, a JSON body (or none)."""
        headers = {**(headers or {}), "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        return self.send(method, path, body, headers)

    def send(self, method: str, path: str, body: str | None, headers: dict):
        # As a browser: compressed answers accepted (and the server's CPU for them counted).
        headers = {**headers, "Accept-Encoding": "gzip"}
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
        if response.getheader("Content-Encoding") == "gzip":
            content = gzip.decompress(content)
        return response, content.decode("utf-8", "replace"), time.perf_counter() - started

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

    def __init__(
        self, base_url: str, dataset: int, username: str, password: str,
        answers: list | None = None, session_key: str | None = None, answers_by_item: dict | None = None,
    ):
        self.session = Session(base_url)
        if session_key:  # logged in already (the benchmark made the session): no password hashing
            self.session.cookies["sessionid"] = session_key
        else:
            self.session.log_in(username, password)
        self.answers = answers  # the answer to each position of the queue; None: ANSWER to every item
        # A routed dataset: the answer to each item by its id (the item a client gets is routing's choice).
        self.answers_by_item = answers_by_item
        self.start_path = f"/annotate/{dataset}/"
        self.recheck_seconds = 1  # routed, nothing available: the waiting page's interval, once it said it
        self.page: str | None = None  # the item's page or area, once the last save brought it
        self.done = False
        try:
            self.path = self.next_item(username)
        except Refused:
            if answers_by_item is None:
                raise
            # Routed, and every item left is reserved by others now (a small dataset): asked
            # again at the first turn, as a later wait is.
            self.path = self.start_path
        self.done = self.path.endswith("/done/")
        self.waits = 0  # routed: times no item was available

    def next_item(self, username: str) -> str:
        """The path of the first item: a fixed queue's start redirects to it; a routed dataset's
        start page asks for it by POST, as its script does."""
        response, body, _ = self.session.request("GET", self.start_path)
        if response.status == 200 and 'id="routing-next"' in body:
            token = field(body, "csrfmiddlewaretoken")
            response, body, _ = self.session.request("POST", self.start_path, {"csrfmiddlewaretoken": token},
                                                     {"X-CSRFToken": token})
            recheck = RECHECK.search(body)
            if response.status == 200 and recheck:  # nothing available now: the page checks again after its interval
                self.recheck_seconds = int(recheck.group(1))
        if response.status != 302:
            raise Refused(f"{username}: no item in {self.start_path} ({response.status})")
        return urlsplit(response.getheader("Location")).path

    def open_page(self, page_times: list[float]) -> str:
        """GET the item page of ``self.path`` (kept for the save that follows)."""
        response, self.page, seconds = self.session.request("GET", self.path)
        if response.status != 200:
            raise Refused(f"GET {self.path}: {response.status}")
        page_times.append(seconds)
        return self.page

    def open_first_page(self, page_times: list[float]) -> None:
        """Open the first item page before the run, when there is one (not a routed client
        still waiting for an item, nor a client with nothing to do)."""
        if self.page is None and not self.done and self.path != self.start_path:
            self.open_page(page_times)

    def answer(self, page: str) -> str:
        if self.answers_by_item is not None:
            return json.dumps(self.answers_by_item[item_id(page)])
        return ANSWER if self.answers is None else json.dumps(self.answers[self.position() - 1])

    def item(self, page_times: list[float], save_times: list[float]) -> None:
        page = self.page
        if self.path == self.start_path:  # routed, nothing was available at the last save: ask again
            try:
                self.path = self.next_item("routed annotator")
            except Refused:
                self.waits += 1
                time.sleep(self.recheck_seconds)
                return
            if self.path.endswith("/done/"):  # nothing remains for this annotator
                self.done = True
                return
        if page is None:
            page = self.open_page(page_times)
        token = field(page, "csrfmiddlewaretoken")
        fields = {
            "csrfmiddlewaretoken": token,
            "answer": self.answer(page),
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
        if response.status == 422 and 'name="confirm"' in body:
            # A caution (a numeral form the dictionary does not know): the annotator presses
            # Enter again, as the page asks; both round trips are saves to them.
            save_times.append(seconds)
            response, body, seconds = self.session.request("POST", self.path, {**fields, "confirm": "1"}, headers)
        next_path = response.getheader("HX-Push-Url") or response.getheader("HX-Redirect")
        if response.status != 200 or not next_path:
            raise Refused(f"POST {self.path}: {response.status} {body[:300]}")
        save_times.append(seconds)
        self.path = next_path
        self.page = body if response.getheader("HX-Push-Url") else None
        self.done = self.path.endswith("/done/")

    def position(self) -> int:
        return int(self.path.rstrip("/").rsplit("/", 1)[1])


class ApiAnnotator:
    """Works through the same queue through the REST API with a token, as a script would:
    its assigned items listed once, then one POST /api/annotations/ a save."""

    def __init__(self, base_url: str, dataset: int, username: str, password: str):
        self.session = Session(base_url)
        body = json.dumps({"username": username, "password": password})
        response, reply, _ = self.session.request_json("POST", "/api/token/", body)
        if response.status != 200:
            raise Refused(f"token of {username} refused ({response.status})")
        self.headers = {"Authorization": f"Token {json.loads(reply)['token']}"}
        # Its assigned items without an answer yet, in its order.
        answered = {answer["item"] for answer in self.every_page(f"/api/annotations/?dataset={dataset}&page_size=1000")}
        assigned = self.every_page(f"/api/datasets/{dataset}/items/?page_size=1000")
        self.items = [item["id"] for item in assigned if item["id"] not in answered]
        self.done = not self.items

    def every_page(self, url: str) -> list[dict]:
        results = []
        while url:
            response, reply, _ = self.session.request_json("GET", url, headers=self.headers)
            if response.status != 200:
                raise Refused(f"GET {url}: {response.status}")
            listing = json.loads(reply)
            results += listing["results"]
            url = listing["next"] and urlsplit(listing["next"]).path + "?" + urlsplit(listing["next"]).query
        return results

    def item(self, page_times: list[float], save_times: list[float]) -> None:
        body = json.dumps({"item": self.items.pop(0), "answer": json.loads(ANSWER), "status": "submitted",
                           "version": 0, "active_ms": 1500})
        response, reply, seconds = self.session.request_json("POST", "/api/annotations/", body, self.headers)
        if response.status != 201:
            raise Refused(f"POST /api/annotations/: {response.status} {reply[:300]}")
        save_times.append(seconds)
        self.done = not self.items


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
        "--answers", help="JSON file: username -> {dataset, answers (one a position of the queue), session "
        "(a session key: logged in already)}; each client works in its own dataset (the positional dataset is not used)"
    )
    parser.add_argument(
        "--answers-by-item", help="JSON file: dataset id -> item id -> answer, for routed datasets (with --answers)"
    )
    parser.add_argument(
        "--think-mean", type=float, default=0, help="seconds of thinking before each item, drawn from an "
        "exponential distribution of this mean (default 0: none)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the thinking times")
    parser.add_argument("--api", action="store_true", help="save through the REST API with a token, not the item page")
    parser.add_argument(
        "--cpu-snapshots", action="store_true", help="report every process's CPU time at the start and end of the run"
    )
    parser.add_argument(
        "--start-on-stdin", action="store_true", help="once every client has entered and opened its first item page, "
        "print the line \"ready\" and begin the run when a line comes on standard input (several generators' runs "
        "begin together, with saves only: opened all at once, the first pages doubled the first seconds' requests)"
    )
    args = parser.parse_args()
    if args.api and args.start_on_stdin:
        parser.error("--start-on-stdin: item page clients only (not --api)")

    users = args.users.split(",")
    if args.answers:
        plan = json.loads(Path(args.answers).read_text())
        by_item = json.loads(Path(args.answers_by_item).read_text()) if args.answers_by_item else {}
        annotators = [
            Annotator(args.base_url, plan[user]["dataset"], user, args.password, plan[user]["answers"], plan[user]["session"],
                      by_item.get(str(plan[user]["dataset"])))
            for user in users
        ]
    else:
        client = ApiAnnotator if args.api else Annotator
        annotators = [client(args.base_url, args.dataset, user, args.password) for user in users]
    for annotator in annotators:
        for _ in range(args.warmup_items):
            annotator.item([], [])

    page_times: list[float] = []
    if args.start_on_stdin:
        for annotator in annotators:
            annotator.open_first_page(page_times)
    save_times: list[float] = []
    errors: list[str] = []
    start = threading.Barrier(len(annotators) + 1)
    deadline = [0.0]

    def work(number: int, annotator: Annotator) -> None:
        thinking = random.Random(args.seed * 1_000_003 + number)
        start.wait()
        done = 0
        try:
            while not annotator.done:
                if args.think_mean:
                    pause = thinking.expovariate(1 / args.think_mean)
                    if args.seconds is not None:
                        # Not past the end of the run: a long pause there would stretch the
                        # run (and thin its saves per second) without a request in it.
                        pause = min(pause, max(0.0, deadline[0] - time.perf_counter()))
                    time.sleep(pause)
                if args.items is not None and done >= args.items:
                    break
                if args.seconds is not None and time.perf_counter() >= deadline[0]:
                    break
                annotator.item(page_times, save_times)  # list.append is atomic under the GIL
                done += 1
        except Exception as error:  # reported, and the run counts as failed
            errors.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=work, args=pair) for pair in enumerate(annotators)]
    for thread in threads:
        thread.start()
    if args.start_on_stdin:
        print("ready", flush=True)
        sys.stdin.readline()
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
            "routing_waits": sum(getattr(annotator, "waits", 0) for annotator in annotators),
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
