"""Item browser benchmark: server time and queries of the organizer's item browser and item page.

A wsd dataset of 10,000 items each answered by 30 annotators (every third item a
disagreement; bench_adjudication's builder), and one of 1,000 for the query counts at a second
size. Each request is made in-process with Django's test client (server time: routing,
queries, template); p50/p95 over the runs, per kind of page: every item, a state filter, a
text search, a late page, one item. Prints one line per figure and writes them to
bench/results.json under "item_browser". Run through bench/item_browser.sh.
"""

import argparse
import os
import statistics
import sys
import time

from bench_adjudication import make_dataset, queries, timed
from bench_server import analyze, recreate_database, report, save_results

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")

# The browser's requests timed: label -> query string.
REQUESTS = {
    "every_item": "",
    "disagreements": "state=disagreement",
    "text_search": "q=Zdanie%20777",
    "late_page": "sort=-answers&page=150",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000, help="items of the dataset (default 10000)")
    parser.add_argument("--annotators", type=int, default=30, help="annotators answering every item (default 30)")
    parser.add_argument("--runs", type=int, default=30, help="requests timed per kind (default 30)")
    args = parser.parse_args()
    recreate_database(os.environ["DATABASE_URL"], "polis_bench_item_browser")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    annotators = [User.objects.create_user(f"annotator{k}") for k in range(args.annotators)]
    organizer = User.objects.create_user("organizer", is_staff=True)
    organizer.groups.add(Group.objects.get(name="organizer"))
    started = time.perf_counter()
    dataset, disagreements = make_dataset("bench-wsd", args.items, annotators)
    small, _ = make_dataset("bench-wsd-small", args.items // 10, annotators)
    analyze()
    print(f"datasets made in {time.perf_counter() - started:.1f} s", flush=True)
    client = Client()
    client.force_login(organizer)

    def browse(data, query):
        return lambda: client.get(reverse("organizer_items", args=[data.pk]) + "?" + query)

    def item(data, item_pk):
        return lambda: client.get(reverse("organizer_item", args=[data.pk, item_pk]))

    for key, data in (("small", small), ("full", dataset)):
        for name, query in REQUESTS.items():
            report(f"{name}_queries_{key}", f"browser ({name}), {key} dataset: queries", queries(browse(data, query)), "", 0)
    report("item_queries_full", "item page, full dataset: queries", queries(item(dataset, disagreements[0].pk)), "", 0)
    for name, query in REQUESTS.items():
        browse(dataset, query)()  # warm up: connection, plans, templates
        values = [timed(browse(dataset, query)) for _ in range(args.runs)]
        report(f"{name}_p50_ms", f"browser ({name}), {args.items:,} items: p50", statistics.median(values), "ms")
        report(f"{name}_p95_ms", f"browser ({name}), {args.items:,} items: p95", statistics.quantiles(values, n=20)[18], "ms")
    values = [timed(item(dataset, case.pk)) for case in disagreements[1 : 1 + args.runs]]
    report("item_p50_ms", f"item page, {args.annotators} answers: p50", statistics.median(values), "ms")
    settings = {"items": args.items, "annotators_per_item": args.annotators, "runs": args.runs,
                "disagreements": "every third item"}
    save_results(settings, key="item_browser")


if __name__ == "__main__":
    sys.exit(main())
