"""Adjudication benchmark: server time of the adjudication page and of a decision.

A wsd dataset of 10,000 items answered by 3 annotators (every third item a disagreement,
the answers written straight to the database), and one of 1,000 items for the query counts
at a second size. Each request is made in-process with Django's test client (server time:
routing, queries, template, no network), the adjudication page with the claim its script posts, the decision
(taking annotator 2's answer) with the redirect to the next item; p50/p95 over the runs.
Prints one line per figure and writes them to bench/results.json under "adjudication".
Run through bench/adjudication.sh, which provides PostgreSQL and the settings.
"""

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

from bench_server import analyze, recreate_database, report, save_results

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")


def make_dataset(name: str, n_items: int, annotators):
    from annotation.answers.normalised import normalised_answer
    from annotation.models import Annotation, Assignment, Dataset, Item

    dataset = Dataset.objects.create(name=name, subtask="wsd", source_filename="bench.jsonl", source_sha256="0" * 64)
    items = Item.objects.bulk_create(
        Item(dataset=dataset, external_id=f"w-{n:05d}", ordinal=n, payload={
            "id": f"w-{n:05d}",
            "reference_sentence": f"Zdanie {n} z [[TARGET]]zamkiem[[/TARGET]] w środku.",
            "candidates": {letter: f"{letter}: [[TARGET]]zamek[[/TARGET]] numer {n}." for letter in "ABCD"},
        })
        for n in range(n_items)
    )
    Assignment.objects.bulk_create(
        Assignment(dataset=dataset, item=item, annotator=annotator, position=position)
        for annotator in annotators for position, item in enumerate(items, start=1)
    )
    now = datetime.datetime.now(datetime.timezone.utc)
    annotations = []
    for n, item in enumerate(items):
        for k, annotator in enumerate(annotators):
            answer = {"answer": "B" if n % 3 == 0 and k == 1 else "A"}
            annotations.append(Annotation(
                item=item, annotator=annotator, answer=answer, status="submitted", version=1,
                submitted_at=now, normalised_answer=normalised_answer("wsd", answer),
            ))
    Annotation.objects.bulk_create(annotations, batch_size=5000)
    return dataset, [item for n, item in enumerate(items) if n % 3 == 0]


def timed(request) -> float:
    started = time.perf_counter()
    response = request()
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code in (200, 302), response.status_code
    return elapsed


def queries(request) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as context:
        request()
    return len(context)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000, help="items of the dataset (default 10000)")
    parser.add_argument("--runs", type=int, default=300, help="pages and decisions timed (default 300)")
    args = parser.parse_args()
    recreate_database(os.environ["DATABASE_URL"], "polis_bench_adjudication")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from annotation.models import Annotation

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    annotators = [User.objects.create_user(f"annotator{k}") for k in range(3)]
    adjudicator = User.objects.create_user("adjudicator")
    adjudicator.groups.add(Group.objects.get(name="adjudicator"))
    started = time.perf_counter()
    dataset, disagreements = make_dataset("bench-wsd", args.items, annotators)
    small, small_disagreements = make_dataset("bench-wsd-small", args.items // 10, annotators)
    analyze()
    print(f"datasets made in {time.perf_counter() - started:.1f} s", flush=True)

    client = Client()
    client.force_login(adjudicator)

    def page(data, item):
        url = reverse("adjudicate_item", args=[data.pk, item.pk])

        def open_and_claim():  # the page, then the claim its script posts
            client.get(url)
            client.post(url, {"intent": "claim"})

        return open_and_claim

    def decide(data, item):
        taken = Annotation.objects.get(item=item, annotator=annotators[1]).pk
        return lambda: client.post(reverse("adjudicate_item", args=[data.pk, item.pk]), {
            "intent": "decide", "source": "annotation", "annotation": str(taken), "version": "0",
        })

    for label, data, items in (("10x smaller", small, small_disagreements), ("full size", dataset, disagreements)):
        key = "small" if data is small else "full"
        report(f"page_queries_{key}", f"adjudication page, {label} dataset: queries", queries(page(data, items[0])), "", 0)
        report(f"decision_queries_{key}", f"decision, {label} dataset: queries", queries(decide(data, items[0])), "", 0)
    for item in disagreements[1:11]:  # warm up: connection, prepared plans, templates
        page(dataset, item)()
    page_ms = [timed(page(dataset, item)) for item in disagreements[11 : 11 + args.runs]]
    decision_ms = [timed(decide(dataset, item)) for item in disagreements[11 : 11 + args.runs]]
    for name, values in (("page", page_ms), ("decision", decision_ms)):
        cuts = statistics.quantiles(values, n=20)
        report(f"{name}_p50_ms", f"adjudication {name}, {args.items:,} items: p50", statistics.median(values), "ms")
        report(f"{name}_p95_ms", f"adjudication {name}, {args.items:,} items: p95", cuts[18], "ms")
    settings = {"items": args.items, "runs": args.runs, "annotators_per_item": 3, "disagreements": "every third item"}
    save_results(settings, key="adjudication")


if __name__ == "__main__":
    main()
