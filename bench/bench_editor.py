"""Discourse tree editor benchmark: how long an edit on a 60-DU passage takes to show in Chromium.

Run: .venv/bin/python bench/bench_editor.py (no wrapper needed). The database is SQLite in a
temporary folder, made anew by `migrate` and removed at the end: what is measured here is
what an annotator waits for after one edit (the browser and one tree partial from the
server), not the database under load, which bench/server.sh measures on PostgreSQL.

One annotator is assigned one passage of 60 DUs, built from the real demo passages
(demo/data/discourse/dev.inputs.jsonl, concatenated and renumbered) and imported through
the import service. gunicorn serves the site with DEBUG off and the collected static files
(whitenoise). Debian's Chromium logs in through the login form in one browser context and
opens the passage in five fresh ones (an empty cache: the page's cold load); in the last it
does the annotator's mouse work: DU 1 made the root, then each of the other 59 DUs selected
by a click on its text and attached to the DU before it by a click on that DU's "head"
button (so the tree ends 60 levels deep, the widest drawing of the indented tree). Each
edit is timed inside the page, from the click event's time stamp until htmx has swapped the
server's tree partial in and settled, plus the next animation frame and a task after it
(the frame with the new tree has been painted). Prints one line per figure and merges them
under "editor" into bench/results.json, keeping the other benchmarks' keys.
"""

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_server import (  # noqa: E402
    BASE_DIR,
    PASSWORD,
    figures,
    gunicorn,
    launch_chromium,
    log_in,
    manage,
    percentile,
    report,
    save_results,
)

SOURCE = BASE_DIR / "demo" / "data" / "discourse" / "dev.inputs.jsonl"
DATASET_NAME = "bench-discourse-60"
UNITS = 60
VIEWPORT = {"width": 1400, "height": 900}
COLD_LOADS = 5

# Run in the page before each click; the edit's promise resolves with the times (page clock,
# ms) of the click event and of the frame after the tree partial was swapped in and settled.
ARM_EDIT = """() => {
  const pane = document.getElementById('discourse-list');
  window.benchEdit = new Promise((resolve) => {
    let clicked = null;
    document.addEventListener('click', (event) => { clicked = event.timeStamp; }, {capture: true, once: true});
    pane.addEventListener('htmx:afterSettle', () => {
      requestAnimationFrame(() => setTimeout(() => resolve({clicked, painted: performance.now()}), 0));
    }, {once: true});
  });
}"""
EDIT_DONE = "() => window.benchEdit"
TREE_PARTIALS = """() => performance.getEntriesByType('resource')
  .filter((entry) => entry.name.includes('partial=tree'))
  .map((entry) => ({server: entry.responseStart - entry.requestStart, end: entry.responseEnd, bytes: entry.decodedBodySize}))"""
COLD_LOAD = """() => { const n = performance.getEntriesByType('navigation')[0];
  return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd}; }"""


def long_passage(count: int) -> dict:
    """The demo passages' DUs one after another until `count`, with sentence numbers, du_ids
    and part orders renumbered so that they read as one passage."""
    passages = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines() if line.strip()]
    units: list[dict] = []
    sentences = orders = 0
    for passage in passages:
        for unit in passage["discourse_units"]:
            sentence, _, number = unit["du_id"].partition(".")
            sent_id = str(sentences + int(sentence))
            units.append({
                **unit,
                "du_id": f"{sent_id}.{number}",
                "sent_id": sent_id,
                "parts": [{**part, "order": orders + part["order"]} for part in unit["parts"]],
            })
        sentences = max(int(unit["sent_id"]) for unit in units)
        orders = 1 + max(part["order"] for unit in units for part in unit["parts"])
        if len(units) >= count:
            break
    if len(units) < count:
        raise SystemExit(f"{SOURCE} holds only {len(units)} DUs")
    return {
        "id": f"bench-{count}-du", "document_id": "bench", "passage_id": f"bench:{count}-du",
        "discourse_units": units[:count],
    }


def make_passage():
    from django.contrib.auth.models import Group, User

    from annotation.core.files import SourceFile
    from annotation.core.roles import ANNOTATOR
    from annotation.datasets.assigning import assign
    from annotation.datasets.importing import import_dataset

    annotator = User.objects.create_user("bench-annotator", password=PASSWORD)
    annotator.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    record = long_passage(UNITS)
    inputs = SourceFile(name="bench.inputs.jsonl", data=(json.dumps(record, ensure_ascii=False) + "\n").encode())
    dataset = import_dataset(subtask="discourse", name=DATASET_NAME, inputs=inputs)
    assign(dataset, [annotator], 1)
    return dataset, annotator


def edit_times(base_url: str, dataset_pk: int, annotator) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        login = browser.new_context()
        page = login.new_page()
        log_in(page, base_url, annotator.username)
        page.goto(f"{base_url}/annotate/{dataset_pk}/")  # the server's first item page is not typical
        passage_url = page.url
        state = login.storage_state()
        login.close()

        # Each load in a new context, with an empty cache; the edits are made in the last one.
        cold_loads = []
        for _ in range(COLD_LOADS):
            page = browser.new_context(storage_state=state, viewport=VIEWPORT).new_page()
            page.goto(passage_url, wait_until="load")
            page.wait_for_load_state("networkidle")
            cold_loads.append(page.evaluate(COLD_LOAD))
        page.evaluate("() => performance.setResourceTimingBufferSize(1000)")
        rows = page.locator(".du-row")
        if rows.count() != UNITS:
            raise SystemExit(f"the page shows {rows.count()} DUs, not {UNITS}")

        def timed(click) -> dict:
            page.evaluate(ARM_EDIT)
            click()
            return page.evaluate(EDIT_DONE)

        edits = [timed(lambda: page.click("#discourse-make-root"))]  # DU 1 is selected on arrival
        for number in range(2, UNITS + 1):
            page.click(f'.du-row[data-number="{number}"] .du-text')
            edits.append(timed(lambda number=number: page.click(f'.du-row[data-number="{number - 1}"] .du-set-head')))

        unattached = page.locator(".du-row .du-unattached").count()
        roots = page.locator(".du-row.is-root").count()
        partials = page.evaluate(TREE_PARTIALS)
        browser.close()
    if unattached or roots != 1 or len(partials) != UNITS:
        raise SystemExit(f"the edits did not all arrive: {unattached} DUs unattached, {roots} roots, {len(partials)} partials")
    # One partial per edit, in order: the page sends the next edit only after the last is drawn.
    root, *attachments = zip(edits, partials)
    times = [edit["painted"] - edit["clicked"] for edit, _ in attachments]

    label = f"{UNITS}-DU passage"
    report("edit_to_paint_p50_ms", f"{label}: edit to painted tree, median of {len(times)} attachments", statistics.median(times), "ms")
    report("edit_to_paint_p95_ms", f"{label}: edit to painted tree, p95", percentile(times, 0.95), "ms")
    report("edit_to_paint_max_ms", f"{label}: edit to painted tree, max", max(times), "ms")
    report(
        "click_to_response_p50_ms", f"{label}: of which click to the partial received (script, network, server), median",
        statistics.median(partial["end"] - edit["clicked"] for edit, partial in attachments), "ms",
    )
    report(
        "response_to_paint_p50_ms", f"{label}: of which partial received to painted (swap, layout, paint), median",
        statistics.median(edit["painted"] - partial["end"] for edit, partial in attachments), "ms",
    )
    report("make_root_to_paint_ms", f"{label}: the first edit (DU 1 made the root), to painted tree",
           root[0]["painted"] - root[0]["clicked"], "ms")
    report(
        "tree_partial_server_p50_ms", f"{label}: tree partial, request sent to first byte (Resource Timing), median",
        statistics.median(partial["server"] for partial in partials), "ms",
    )
    report("tree_partial_bytes", f"{label}: tree partial, decoded size (last)", partials[-1]["bytes"], "B", 0)
    for key, name in (("dcl", "DOMContentLoaded"), ("load", "load event")):
        report(
            f"cold_{key}_ms", f"{label}: page, cold (empty cache): {name}, median of {COLD_LOADS}",
            statistics.median(load[key] for load in cold_loads), "ms", 0,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="polis-bench-editor-") as folder:
        os.environ.update(
            DATABASE_URL=f"sqlite:///{Path(folder) / 'db.sqlite3'}",
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1",
            DJANGO_SETTINGS_MODULE="polis_site.settings",
        )
        for name in ("DEBUG", "POLIS_HTTPS"):
            os.environ.pop(name, None)
        manage("migrate", "--noinput", "-v", "0")
        manage("createcachetable")
        manage("collectstatic", "--noinput", "-v", "0")
        sys.path.insert(0, str(BASE_DIR))
        import django

        django.setup()
        dataset, annotator = make_passage()
        # Playwright's sync API runs an event loop in this thread; no database call follows.
        with gunicorn(args.workers) as base_url:
            edit_times(base_url, dataset.pk, annotator)
    figures["database"] = "SQLite"
    save_results({"units": UNITS, "gunicorn_workers": args.workers, "viewport": VIEWPORT}, key="editor")


if __name__ == "__main__":
    main()
