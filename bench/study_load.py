"""Load generator of the panel study benchmark: participants arriving by the study's entry link
and working through it as a browser does (bench/load.py's sessions, standard library only).

Each client waits for its arrival time, then: GET the entry link (the consent page), reads it
for a time drawn uniformly from --reading (seeded), POST intent=consent: 302 to the first item,
which the consent reserves. When it reserved none, the 302 is to the continue page: GET it (302
to the dataset's start page), GET the start page and POST it as its script does (302 to the
item reserved). Then GET the item page; thinking before each item for a time drawn uniformly
from --think (seeded), POST save & next as htmx sends it, whose reply is the next item's area
or, at the end of the quota, the way to the continue page, which shows the completion code.

Prints one JSON object: the latencies in seconds of each kind of request ("entry", "consent",
"continue", "start", "next", "item", "save", "done"), "elapsed", its own "cpu_seconds",
"errors", "completed" (the clients whose last page showed the completion code), "waits" (no
item free: asked again a second later, as the waiting page does).
"""

import argparse
import json
import random
import sys
import threading
import time
from urllib.parse import urlencode, urlsplit

from load import ANSWER, Refused, Session, field

KINDS = ("entry", "consent", "continue", "start", "next", "item", "save", "done")


class Participant:
    """One participant's browser going through the study, each request timed by its kind."""

    def __init__(self, base_url: str, token: str, query: dict, code: str, times: dict[str, list[float]]):
        self.session = Session(base_url)
        self.origin = self.session.origin
        self.entry = f"/study/{token}/?{urlencode(query)}"
        self.code = code
        self.times = times
        self.waits = 0

    def timed(self, kind: str, method: str, path: str, fields: dict | None = None, headers: dict | None = None,
              expect: int = 200):
        response, body, seconds = self.session.request(method, path, fields, headers)
        self.times[kind].append(seconds)  # list.append is atomic under the GIL
        if response.status != expect:
            raise Refused(f"{kind} {method} {path}: {response.status} {body[:200]}")
        return response, body

    def location(self, response) -> str:
        return urlsplit(response.getheader("Location")).path

    def enter(self, reading: float) -> str:
        """Consent given after ``reading`` seconds on its page; the path of the first item."""
        _, page = self.timed("entry", "GET", self.entry)
        token = field(page, "csrfmiddlewaretoken")
        time.sleep(reading)
        response, _ = self.timed("consent", "POST", self.entry, {"csrfmiddlewaretoken": token, "intent": "consent"},
                                 expect=302)
        if "/annotate/" in self.location(response):
            return self.location(response)  # the first item, reserved by the consent
        response, _ = self.timed("continue", "GET", self.location(response), expect=302)
        return self.reserve(self.location(response))

    def reserve(self, start: str) -> str:
        """The next item's path from the dataset's start page, as its script asks for it."""
        while True:
            _, page = self.timed("start", "GET", start)
            if 'id="routing-next"' not in page:
                raise Refused(f"no routing form on {start}")
            token = field(page, "csrfmiddlewaretoken")
            response, body, seconds = self.session.request("POST", start, {"csrfmiddlewaretoken": token},
                                                           {"X-CSRFToken": token})
            self.times["next"].append(seconds)
            if response.status == 302:
                return self.location(response)
            if response.status != 200:
                raise Refused(f"next POST {start}: {response.status} {body[:200]}")
            self.waits += 1  # nothing free now: the waiting page asks again
            time.sleep(1)

    def work(self, reading: float, think: random.Random, low: float, high: float) -> bool:
        """The whole way from the entry link, ``reading`` seconds on the consent page; True: the
        last page showed the completion code."""
        path = self.enter(reading)
        _, page = self.timed("item", "GET", path)
        while True:
            time.sleep(think.uniform(low, high))
            token = field(page, "csrfmiddlewaretoken")
            fields = {"csrfmiddlewaretoken": token, "answer": ANSWER, "version": field(page, "version"),
                      "clock": field(page, "clock"), "intent": "submit", "active_ms": "2500"}
            headers = {"HX-Request": "true", "HX-Current-URL": self.origin + path, "X-CSRFToken": token}
            response, page = self.timed("save", "POST", path, fields, headers)
            pushed, redirected = response.getheader("HX-Push-Url"), response.getheader("HX-Redirect")
            if pushed:
                path = urlsplit(pushed).path
                continue
            if not redirected:
                raise Refused(f"save {path}: neither the next item nor a redirect")
            return self.finish(urlsplit(redirected).path)

    def finish(self, path: str) -> bool:
        """Follow the redirects from the end of the queue to the study's page with the code."""
        for _ in range(5):
            response, page, seconds = self.session.request("GET", path)
            self.times["done"].append(seconds)
            if response.status == 200:
                return f'class="completion-code">{self.code}<' in page
            if response.status != 302:
                raise Refused(f"done GET {path}: {response.status}")
            path = self.location(response)
        raise Refused("the way to the completion page did not end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("base_url")
    parser.add_argument("--token", required=True, help="the study's link token")
    parser.add_argument("--ids", required=True, help="comma-separated panel ids, one client each")
    parser.add_argument("--study-id", required=True, help="the panel's study id (STUDY_ID)")
    parser.add_argument("--code", required=True, help="the completion code the last page must show")
    parser.add_argument("--start-at", type=float, required=True, help="the run's start, seconds since the epoch")
    parser.add_argument("--arrivals", required=True, help="comma-separated seconds after the start, one per id")
    parser.add_argument("--think", default="2,5", help="seconds of thinking before each save: low,high (default 2,5)")
    parser.add_argument("--reading", default="5,15", help="seconds on the consent page before consenting: low,high (default 5,15)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ids, arrivals = args.ids.split(","), [float(value) for value in args.arrivals.split(",")]
    (low, high), (reading_low, reading_high) = (
        [float(value) for value in bounds.split(",")] for bounds in (args.think, args.reading)
    )
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    errors: list[str] = []
    completed: list[bool] = []
    participants = [Participant(args.base_url, args.token, {"PROLIFIC_PID": panel_id, "STUDY_ID": args.study_id,
                                                            "SESSION_ID": f"session-{panel_id}"}, args.code, times)
                    for panel_id in ids]

    def run(number: int, participant: Participant) -> None:
        think = random.Random(args.seed * 1_000_003 + number)
        # A generator of its own: the think times are the same whether the consent is read or not.
        reading = random.Random(f"reading {args.seed} {number}").uniform(reading_low, reading_high)
        # The wall clock: the generators, each a process, share the run's start.
        time.sleep(max(0.0, args.start_at + arrivals[number] - time.time()))
        try:
            completed.append(participant.work(reading, think, low, high))
        except Exception as error:  # reported, and the run counts as failed
            errors.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(participants)]
    for thread in threads:
        thread.start()
    own_cpu_before = time.process_time()
    for thread in threads:
        thread.join()
    json.dump({"times": times, "elapsed": time.time() - args.start_at, "cpu_seconds": time.process_time() - own_cpu_before,
               "errors": errors, "completed": sum(completed), "waits": sum(p.waits for p in participants)}, sys.stdout)


if __name__ == "__main__":
    main()
