"""Save & next in Chromium: from the key press to the next item painted.

Run through bench/next_item.sh, which provides PostgreSQL, the virtualenv and the settings.
This process builds, in the database named by DATABASE_URL (dropped and made anew: it must
be a database of this benchmark's own), one annotator with a commas dataset and a wsd dataset
of the real demo items (repeated with new ids as needed), starts gunicorn (2 sync workers by
default, DEBUG off, the collected static files) and drives Debian's Chromium through each
queue as an annotator does with the keyboard: the answer's key (digit 1 for a comma at
position 1; "a" for the first sense), a pause (--think-ms), then Enter. Each Enter is timed
in the page, from the keydown event's time stamp until the next item is painted: the first
frame after the next item's widget has run (DOMContentLoaded after a page load, or the end of
an htmx swap), plus a task after that frame. Both ends are read on the page's clock
(performance.timeOrigin + page time), so a page load between them is measured too. Prints one
line per figure and merges them under "next_item" into bench/results.json.
"""

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_server import (  # noqa: E402
    BASE_DIR,
    PASSWORD,
    campaign_inputs,
    figures,
    gunicorn,
    launch_chromium,
    log_in,
    manage,
    percentile,
    recreate_database,
    report,
    save_results,
)

DATABASE_NAME = "polis_bench_next_item"
# subtask -> the key that gives a valid answer on every item of the queue
ANSWER_KEYS = {"commas": "Digit1", "wsd": "a"}
VIEWPORT = {"width": 1280, "height": 900}

# Runs in every document before its own scripts. The Enter's time survives a page load in
# sessionStorage; "painted" is set once per item shown, with the path it was shown at.
TIMING_HOOKS = """(() => {
  const now = () => performance.timeOrigin + performance.now();
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter") sessionStorage.setItem("benchEnterAt", String(performance.timeOrigin + event.timeStamp));
  }, { capture: true });
  // The reply that brought the item: the page's own (a page load) or the save's (a swap).
  const replyEnd = (swapped) => {
    const entries = swapped
      ? performance.getEntriesByType("resource").filter((entry) => entry.initiatorType === "xmlhttprequest")
      : performance.getEntriesByType("navigation");
    performance.clearResourceTimings();
    return entries.length ? performance.timeOrigin + entries[entries.length - 1].responseEnd : null;
  };
  const painted = (swapped) => requestAnimationFrame(() => setTimeout(() => {
    window.benchPainted = { path: location.pathname, at: now(), reply: replyEnd(swapped) };
  }, 0));
  document.addEventListener("DOMContentLoaded", () => painted(false));
  // A swap without a page load: htmx pushes the URL, then swaps and settles in the same task.
  document.addEventListener("htmx:pushedIntoHistory", () => painted(true));
})()"""


def make_queues(items: int) -> tuple[object, dict[str, int]]:
    from django.contrib.auth.models import Group, User

    from annotation.core.files import SourceFile
    from annotation.core.roles import ANNOTATOR
    from annotation.datasets.assigning import assign
    from annotation.datasets.importing import import_dataset

    annotator = User.objects.create_user("bench-annotator", password=PASSWORD)
    annotator.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    datasets = {}
    for subtask in ANSWER_KEYS:
        source = BASE_DIR / "demo" / "data" / subtask / "dev.inputs.jsonl"
        inputs = SourceFile(name=f"{subtask}.inputs.jsonl", data=campaign_inputs(items, source))
        dataset = import_dataset(subtask=subtask, name=f"bench-next-{subtask}", inputs=inputs)
        assign(dataset, [annotator], 1)
        datasets[subtask] = dataset.pk
    return annotator, datasets


def walk(page, base_url: str, dataset_pk: int, subtask: str, measured: int, warmup: int, think_ms: int) -> list[dict]:
    """Save & next through the queue; the times (page clock, ms) of the Enter, of the reply
    received and of the next item painted, for the last `measured` items."""
    page.goto(f"{base_url}/annotate/{dataset_pk}/")
    page.wait_for_function("() => window.benchPainted !== undefined")
    times = []
    for number in range(warmup + measured):
        shown = page.evaluate("() => window.benchPainted.path")
        page.keyboard.press(ANSWER_KEYS[subtask])
        page.wait_for_timeout(think_ms)
        page.keyboard.press("Enter")
        page.wait_for_function("(shown) => window.benchPainted && window.benchPainted.path !== shown", arg=shown)
        timing = page.evaluate("() => ({enter: Number(sessionStorage.getItem('benchEnterAt')), painted: window.benchPainted})")
        if not timing["painted"]["path"].startswith(f"/annotate/{dataset_pk}/") or timing["painted"]["path"].endswith("/done/"):
            raise SystemExit(f"{subtask}: save & next went to {timing['painted']['path']}")
        if number >= warmup:
            times.append({"enter": timing["enter"], **timing["painted"]})
    return times


def report_times(subtask: str, times: list[dict]) -> None:
    label = f"{subtask}, {len(times)} items: Enter to next item painted"
    painted = [time["at"] - time["enter"] for time in times]
    key = "" if subtask == "both" else f"{subtask}_"
    report(f"{key}p50_ms", f"{label}, median", statistics.median(painted), "ms")
    report(f"{key}p95_ms", f"{label}, p95", percentile(painted, 0.95), "ms")
    if subtask == "both":
        report("max_ms", f"{label}, max", max(painted), "ms")
        report(
            "reply_p50_ms", f"{label}, of which Enter to the reply received (script, network, server), median",
            statistics.median(time["reply"] - time["enter"] for time in times), "ms",
        )
        report(
            "reply_to_paint_p50_ms", f"{label}, of which reply received to painted (page or swap, widget, paint), median",
            statistics.median(time["at"] - time["reply"] for time in times), "ms",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=50, help="measured items per subtask (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="items per subtask saved before measuring (default 5)")
    parser.add_argument("--think-ms", type=int, default=300, help="pause between the answer's key and Enter (default 300)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--label", default="", help="a note stored with the figures (e.g. before, after)")
    args = parser.parse_args()

    recreate_database(os.environ["DATABASE_URL"], DATABASE_NAME)
    manage("migrate", "--noinput", "-v", "0")
    manage("collectstatic", "--noinput", "-v", "0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    # One more item than are saved, so that the last save opens an item, not the end page.
    annotator, datasets = make_queues(args.warmup + args.items + 1)

    from playwright.sync_api import sync_playwright

    all_times: list[dict] = []
    # Playwright's sync API runs an event loop in this thread; no database call follows.
    with gunicorn(args.workers) as base_url, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(TIMING_HOOKS)
        page = context.new_page()
        log_in(page, base_url, annotator.username)
        for subtask, dataset_pk in datasets.items():
            times = walk(page, base_url, dataset_pk, subtask, args.items, args.warmup, args.think_ms)
            all_times += times
            report_times(subtask, times)
        browser.close()
    report_times("both", all_times)
    figures["database"] = "PostgreSQL"
    save_results(
        {"items_per_subtask": args.items, "warmup": args.warmup, "think_ms": args.think_ms,
         "gunicorn_workers": args.workers, "viewport": VIEWPORT, "label": args.label},
        key="next_item" + (f"_{args.label}" if args.label else ""),
    )


if __name__ == "__main__":
    main()
