"""Gold audit benchmark: the audit queue of a commas dataset of 10,000 items × 3 annotators.

Every item has the gold "no comma"; on every tenth item two of the three annotators agree on a
comma at marker 1 (it enters the queue), on the others their answers agree with the gold or
differ (one of three). Times ``annotation.datasets.auditing.audit_queue`` (best and median of
the runs: reading the answers and gold, the entry rule with the scorer's item figure, the
order) and the gold audit's first page in-process (once fitting the Dawid–Skene posteriors, then
with the fit kept for the data version), and the Python memory the queue takes at
its peak (tracemalloc) and the process's resident set. Prints one line per figure and writes
them to bench/results.json under "gold_audit". Run through bench/gold_audit.sh.
"""

import argparse
import datetime
import os
import resource
import statistics
import sys
import time
import tracemalloc

from bench_adjudication import queries, recreate_database, timed
from bench_server import analyze, report, save_results

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")

SENTENCE = "Ala [1] ma [2] kota [3] i [4] psa [5] a [6] Ola [7] ma [8] rybki."


def make_dataset(n_items: int, n_annotators: int):
    """The commas dataset, its gold, the annotators' assignments and submitted answers."""
    from django.contrib.auth.models import User

    from annotation.answers.normalised import normalised_answer
    from annotation.models import Annotation, Assignment, Dataset, GoldAnswer, Item

    annotators = [User.objects.create_user(f"annotator{k}") for k in range(n_annotators)]
    dataset = Dataset.objects.create(name="bench-commas", subtask="commas", source_filename="bench.jsonl",
                                     source_sha256="0" * 64)
    items = Item.objects.bulk_create(
        (Item(dataset=dataset, external_id=f"c-{n:05d}", ordinal=n,
              payload={"id": f"c-{n:05d}", "sentence_with_positions": SENTENCE}) for n in range(n_items)),
        batch_size=5000)
    GoldAnswer.objects.bulk_create(
        (GoldAnswer(item=item, payload={"id": item.external_id, "commas": [], "optional": []}) for item in items),
        batch_size=5000)
    Assignment.objects.bulk_create(
        (Assignment(dataset=dataset, item=item, annotator=annotator, position=position)
         for annotator in annotators for position, item in enumerate(items, start=1)), batch_size=5000)
    now = datetime.datetime.now(datetime.timezone.utc)
    texts = {commas: normalised_answer("commas", {"commas": list(commas), "optional": []}) for commas in ((), (1,), (2,))}

    def commas_of(n: int, k: int) -> tuple:
        if n % 10 == 0:
            return (1,) if k < 2 else ()  # two of three against the gold: enters
        return (2,) if k == n % n_annotators else ()  # one of three differs: does not

    Annotation.objects.bulk_create(
        (Annotation(item=item, annotator=annotator, answer={"commas": list(commas_of(n, k)), "optional": []},
                    status="submitted", version=1, submitted_at=now, normalised_answer=texts[commas_of(n, k)])
         for n, item in enumerate(items) for k, annotator in enumerate(annotators)), batch_size=5000)
    return dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000, help="items of the dataset (default 10000)")
    parser.add_argument("--annotators", type=int, default=3, help="annotators answering every item (default 3)")
    parser.add_argument("--runs", type=int, default=5, help="runs timed (default 5)")
    args = parser.parse_args()
    recreate_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from annotation.datasets.auditing import audit_queue

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    started = time.perf_counter()
    dataset = make_dataset(args.items, args.annotators)
    analyze()
    print(f"dataset made in {time.perf_counter() - started:.1f} s", flush=True)
    queue = audit_queue(dataset)  # warm up: connection, plans, the scorer's modules
    entering = len(queue)
    if entering != args.items // 10 + (args.items % 10 > 0):
        sys.exit(f"the queue holds {entering} items, not every tenth")
    seconds = []
    for _ in range(args.runs):
        begun = time.perf_counter()
        audit_queue(dataset)
        seconds.append(time.perf_counter() - begun)
    report("queue_items", "items in the queue", entering, "", 0)
    report("queue_best_s", f"audit queue, {args.items:,} items × {args.annotators}: best", min(seconds), "s", 2)
    report("queue_median_s", f"audit queue, {args.items:,} items × {args.annotators}: median",
           statistics.median(seconds), "s", 2)
    tracemalloc.start()
    audit_queue(dataset)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    report("queue_peak_python_mb", "audit queue: peak Python memory (tracemalloc)", peak / 2**20, "MB")
    report("process_max_rss_mb", "the benchmark's process: peak resident set",
           resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "MB")
    organizer = User.objects.create_user("organizer", is_staff=True)
    organizer.groups.add(Group.objects.get(name="organizer"))
    client = Client()
    client.force_login(organizer)

    def page():
        return client.get(reverse("gold_audit", args=[dataset.pk]))

    report("page_fitted_ms", f"the audit's first page, {args.items:,} items: the Dawid–Skene model fitted", timed(page),
           "ms")
    report("page_queries", "the audit's first page, the fit kept: queries", queries(page), "", 0)
    values = [timed(page) for _ in range(args.runs)]
    report("page_median_ms", f"the audit's first page, {args.items:,} items, the fit kept: median",
           statistics.median(values), "ms")
    save_results({"items": args.items, "annotators_per_item": args.annotators, "runs": args.runs,
                  "entering": "every tenth item (two of three against the gold)"}, key="gold_audit")


if __name__ == "__main__":
    main()
