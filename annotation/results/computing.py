"""Reports computed off the request path (services: the writes of StoredReport, and the
background tasks of django-tasks that run them).

A report is computed for a data version (annotation.datasets.versions.dataset_version: what
answers, adjudications, withdrawals, gold, audit decisions, model submissions and training
settings it saw), a seed and the option; each computation is one StoredReport row, unique per
(target, version, seed, option), so two requests never start two computations of one version. The worker
(``manage.py db_worker``; in tests the immediate backend, inline) computes the report, its
plots and its files in one snapshot; pages, downloads, plots and the API serve the newest
finished one at once.

A computation starts on demand (the page's button), when a page or the API finds none or one
of older data, at most once per ``settings.POLIS_REPORT_REFRESH`` (unless asked for), and on
its own: a finished computation looks again ``POLIS_REPORT_REFRESH`` later and starts the
next one if the data changed meanwhile (with a backend that can defer a task), so a report
follows the answers while they come in and stops when they stop.
"""

from __future__ import annotations

import dataclasses
import json
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.formats import get_format
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_tasks import default_task_backend, task

from annotation.core.snapshot import one_snapshot
from annotation.models import Campaign, Dataset, StoredReport, StoredReportPart
from annotation.results import selectors
from annotation.results.formats import (
    DIFFICULTY,
    FORMATS,
    SYNTHETIC_CELL,
    campaign_file,
    campaign_grid,
    difficulty_csv,
    p_figure,
    report_file,
)
from annotation.results.labels import campaign_column_name
from annotation.results.plots import Plot, number_text, percent_text, plot_part_key, report_plots
from annotation.results.report import campaign_report, dataset_report
from annotation.subtasks import part

# A computation still running this long after a worker took it died with its worker (one
# still waiting this long after it was asked for lost its task): the next request restarts it.
ABANDONED = timedelta(minutes=20)
ABANDONED_ERROR = "abandoned: no worker finished it within 20 minutes"


# The language of the downloads (the paper's) and of the plots they show.
DOWNLOAD_LANGUAGE = "en"


def _abandoned(row: StoredReport) -> bool:
    if row.status == StoredReport.Status.RUNNING:
        since = row.started_at or row.requested_at
    elif row.status == StoredReport.Status.PENDING:
        since = row.requested_at
    else:
        return False
    return since <= timezone.now() - ABANDONED


def _version(dataset: Dataset | None, campaign: Campaign | None) -> dict:
    return selectors.dataset_version(dataset) if dataset is not None else selectors.campaign_version(campaign)


def _current_version(dataset: Dataset | None, campaign: Campaign | None) -> tuple[dict, float | None]:
    """The data version and when it was read (None: read now). Each dataset's version is read
    at most once per POLIS_REPORT_VERSION_SECONDS (kept in the shared cache), so that a page
    and its plots and downloads, opened together, read it once, and a campaign's version (its
    datasets') shares the entries of its datasets' own pages."""
    seconds = settings.POLIS_REPORT_VERSION_SECONDS
    if not seconds:
        return _version(dataset, campaign), None
    datasets = [dataset] if dataset is not None else list(campaign.datasets.order_by("pk"))
    keys = {f"polis:report-version:dataset:{member.pk}": member for member in datasets}
    entries = cache.get_many(list(keys))
    missing = {key: {"at": time.time(), "version": selectors.dataset_version(member)}
               for key, member in keys.items() if key not in entries}
    if missing:
        cache.set_many(missing, seconds)
    entries.update(missing)
    read_at = min((entry["at"] for entry in entries.values()), default=time.time())
    if dataset is not None:
        return entries[next(iter(keys))]["version"], read_at
    return {"datasets": {str(member.pk): entries[key]["version"] for key, member in keys.items()}}, read_at


def _seen_after(stored: StoredReport | None, read_at: float | None) -> bool:
    """Whether ``stored`` was computed after the version at hand was read (it saw no less)."""
    return stored is not None and read_at is not None and stored.computed_at.timestamp() >= read_at


def request_report(*, dataset: Dataset | None = None, campaign: Campaign | None = None, seed: int,
                   exclude_below_control: bool, now_asked: bool = False,
                   version: dict | None = None, read_at: float | None = None,
                   known: tuple[StoredReport | None, StoredReport | None] | None = None) -> StoredReport | None:
    """Start the computation of the report of the data as it is now, unless one is current,
    under way, or (not ``now_asked``) the last one was asked for less than
    ``POLIS_REPORT_REFRESH`` ago while a finished one can be served. ``known``: the newest
    finished computation and the latest request, when the caller has read them. Returns the
    row of the computation started (or found for this version), or None when nothing was started."""
    target = {"dataset": dataset} if dataset is not None else {"campaign": campaign}
    options = {"seed": seed, "exclude_below_control": exclude_below_control}
    version = _version(dataset, campaign) if version is None else version
    key = selectors.version_key(version)
    newest, latest = known or (selectors.newest_report(**target, **options, fields=()),
                               selectors.latest_request(**target, **options))
    if newest is not None and (selectors.version_key(newest.seen) == key or _seen_after(newest, read_at)):
        return None  # current
    if latest is not None and latest.status in (StoredReport.Status.PENDING, StoredReport.Status.RUNNING):
        if not _abandoned(latest):
            return None  # under way
        if latest.version != key:  # of older data: it ends here, the data as it is is computed instead
            StoredReport.objects.filter(pk=latest.pk, status=latest.status).update(
                status=StoredReport.Status.FAILED, error=ABANDONED_ERROR)
            latest.status, latest.error = StoredReport.Status.FAILED, ABANDONED_ERROR
    if not now_asked and newest is not None and latest is not None \
            and latest.requested_at > timezone.now() - settings.POLIS_REPORT_REFRESH:
        return None  # the last one is recent enough: the finished one is served meanwhile
    row, created = StoredReport.objects.get_or_create(version=key, **target, **options)
    if not created:
        with transaction.atomic():
            row = StoredReport.objects.select_for_update().get(pk=row.pk)
            if not (row.status == StoredReport.Status.FAILED or _abandoned(row)):
                return row
            row.status, row.error, row.requested_at, row.started_at = StoredReport.Status.PENDING, "", timezone.now(), None
            row.save(update_fields=["status", "error", "requested_at", "started_at"])
    compute_report.enqueue(row.pk)
    return StoredReport.objects.get(pk=row.pk)


@dataclasses.dataclass(frozen=True)
class Served:
    """The newest finished report (None while the first one is computed) and how it stands."""

    stored: StoredReport | None
    freshness: selectors.Freshness


def serve_report(*, dataset: Dataset | None = None, campaign: Campaign | None = None, seed: int,
                 exclude_below_control: bool, fields: tuple[str, ...] = ()) -> Served:
    """What a page, a download, a plot or the API serves: the newest finished report of this
    seed and option (of its large fields, only ``fields``: report, plots), after starting a
    computation when it is missing or of older data (``request_report``'s rules: at most once
    per POLIS_REPORT_REFRESH; with the immediate backend of the tests, inline)."""
    target = {"dataset": dataset} if dataset is not None else {"campaign": campaign}
    options = {"seed": seed, "exclude_below_control": exclude_below_control}
    version, read_at = _current_version(dataset, campaign)
    known = (selectors.newest_report(**target, **options, fields=fields), selectors.latest_request(**target, **options))
    started = request_report(**target, **options, version=version, read_at=read_at, known=known)
    stored, latest = known if started is None else (
        selectors.newest_report(**target, **options, fields=fields), selectors.latest_request(**target, **options))
    if _seen_after(stored, read_at):
        version = stored.seen  # nothing newer known yet
    return Served(stored, selectors.freshness(stored, latest, version))


def run_computation(pk: int) -> bool:
    """Compute the waiting StoredReport ``pk``: the report, its plots and files, what it saw.
    False when it was not waiting (taken by another worker, or done)."""
    with transaction.atomic():
        row = StoredReport.objects.select_for_update(skip_locked=True).filter(
            pk=pk, status=StoredReport.Status.PENDING).first()
        if row is None:
            return False
        row.status, row.started_at = StoredReport.Status.RUNNING, timezone.now()
        row.save(update_fields=["status", "started_at"])
    options = {"seed": row.seed, "exclude_below_control": row.exclude_below_control}
    try:
        with one_snapshot():
            if row.dataset_id is not None:
                seen = selectors.dataset_version(row.dataset)
                report = dataset_report(row.dataset, **options)
            else:
                seen = selectors.campaign_version(row.campaign)
                report = campaign_report(row.campaign, **options)
        # The plots are drawn in every language of the site: each page shows its own, the
        # downloads (in English, the paper's language) the English ones.
        plots = {code: [] for code, _name in settings.LANGUAGES}
        if row.dataset_id is not None:
            for code in plots:
                with translation.override(code):
                    plots[code] = report_plots(report)
            files = {fmt: report_file(report, plots[DOWNLOAD_LANGUAGE], fmt) for fmt in FORMATS}
            files[DIFFICULTY] = difficulty_csv(report)
        else:
            files = {fmt: campaign_file(report, fmt) for fmt in FORMATS}
        drawn = [plot for language_plots in plots.values() for plot in language_plots]
        parts = [
            *(StoredReportPart(stored=row, kind=StoredReportPart.Kind.FILE, key=fmt, content=text)
              for fmt, text in files.items()),
            *(StoredReportPart(stored=row, kind=StoredReportPart.Kind.PLOT, key=plot_part_key(plot.language, plot.key),
                               content=plot.svg) for plot in drawn),
            *(StoredReportPart(stored=row, kind=StoredReportPart.Kind.PAGE, key=code,
                               content=rendered_body(row, report, language_plots, code))
              for code, language_plots in plots.items()),
            StoredReportPart(stored=row, kind=StoredReportPart.Kind.API, key="", content=json.dumps(report, ensure_ascii=False)),
        ]
    except Exception as error:
        StoredReport.objects.filter(pk=pk).update(status=StoredReport.Status.FAILED, error=repr(error)[:2000])
        raise
    with transaction.atomic():
        StoredReportPart.objects.filter(stored=row).delete()
        StoredReportPart.objects.bulk_create(parts)
        StoredReport.objects.filter(pk=pk).update(
            status=StoredReport.Status.DONE, seen=seen, report=report, plots=[dataclasses.asdict(plot) for plot in drawn],
            computed_at=timezone.now())
    _look_again_later(row)
    return True


# How the report draws the breakdown of a subtask whose folder names no template (annotation.subtasks).
DEFAULT_BREAKDOWN = "annotation/organizer/breakdowns/default.html"

def report_query(seed: int, exclude_below_control: bool) -> str:
    """What every link of a report page keeps: the same seed and the same sources."""
    return urlencode({"seed": seed, **({"exclude_below_control": "1"} if exclude_below_control else {})})


def _page_figure(value: float | None) -> str:
    return _("n/a") if value is None else number_text(value, 4)


def _page_p(value: float | None) -> str:
    return _("n/a") if value is None else p_figure(value).replace(".", get_format("DECIMAL_SEPARATOR"))


def campaign_page_cell(cell: dict | None, synthetic_mark: str | None = None) -> str:
    """A campaign cell as the page shows it, in its language (``formats.campaign_cell_text``'s
    figures, the score on the audited gold among them, the page's four decimals and decimal
    separator)."""
    if synthetic_mark is not None:
        return SYNTHETIC_CELL + synthetic_mark
    if cell is None:
        return _("n/a")
    text = _page_figure(cell["score"])
    if cell.get("ci_low") is not None:
        text += f" [{_page_figure(cell['ci_low'])}, {_page_figure(cell['ci_high'])}]"
    if "coverage" in cell:
        text += " " + _("(n %(items)s, %(coverage)s of gold, %(missing)s missing)") % {
            "items": cell["n_items"], "coverage": percent_text(cell["coverage"]), "missing": cell["n_missing"]}
    if "n_annotators" in cell:
        text += " " + ngettext("(%(count)s annotator)", "(%(count)s annotators)", cell["n_annotators"]) % {
            "count": cell["n_annotators"]}
    if "diff" in cell:
        text += "; " + _("difference %(diff)s [%(low)s, %(high)s], p %(p)s, Holm %(holm)s") % {
            "diff": _page_figure(cell["diff"]), "low": _page_figure(cell["diff_ci_low"]),
            "high": _page_figure(cell["diff_ci_high"]), "p": _page_p(cell["p_value"]), "holm": _page_p(cell["p_holm"])}
    if "score_audited" in cell:
        text += "; " + _("audited gold %(score)s") % {"score": _page_figure(cell["score_audited"])}
    return text


def body_context(row: StoredReport, report: dict, plots: list[Plot]) -> dict:
    """The context of the report's body (annotation/organizer/_report_body.html or _campaign_body.html)."""
    context = {"report": report, "formats": FORMATS, "query": report_query(row.seed, row.exclude_below_control)}
    if row.dataset_id is not None:
        # Our own SVG, rebuilt element by element by report_plots.safe_svg: no script, no CSS.
        difficulty = report["item_difficulty"]
        return {**context, "dataset": row.dataset, "plots": [(plot, mark_safe(plot.svg)) for plot in plots],
                "breakdown_template": part(report["subtask"], "BREAKDOWN_TEMPLATE", DEFAULT_BREAKDOWN),
                # Each listed item's id with its item page (the item browser's).
                "difficulty_links": {kind: list(zip(difficulty[kind]["ids"], difficulty[kind]["item_pks"]))
                                     for kind in ("humans_only", "models_only")}}
    headers, grid = campaign_grid(report, campaign_page_cell,
                                  [campaign_column_name(column) for column in ["subtask", *report["columns"]]])
    return {**context, "campaign": row.campaign, "table": report, "headers": headers,
            "rows": [(table_row, cells[1:]) for table_row, cells in zip(report["rows"], grid)]}


def rendered_body(row: StoredReport, report: dict, plots: list[Plot], language: str) -> str:
    """The report's body as the page shows it in ``language``, drawn once per computation."""
    template = "annotation/organizer/_report_body.html" if row.dataset_id is not None \
        else "annotation/organizer/_campaign_body.html"
    with translation.override(language):
        return render_to_string(template, body_context(row, report, plots))


def _look_again_later(row: StoredReport) -> None:
    refresh = settings.POLIS_REPORT_REFRESH
    if refresh and default_task_backend.supports_defer:
        refresh_report.using(run_after=timezone.now() + refresh).enqueue(
            row.dataset_id, row.campaign_id, row.seed, row.exclude_below_control)


@task()
def compute_report(pk: int) -> bool:
    """The background task: compute one waiting report."""
    return run_computation(pk)


@task()
def refresh_report(dataset_id: int | None, campaign_id: int | None, seed: int, exclude_below_control: bool) -> bool:
    """The background task a finished computation leaves behind: compute the report again
    if the data changed since (at most once per POLIS_REPORT_REFRESH)."""
    dataset = Dataset.objects.filter(pk=dataset_id).first() if dataset_id is not None else None
    campaign = Campaign.objects.filter(pk=campaign_id).first() if campaign_id is not None else None
    if dataset is None and campaign is None:
        return False
    return request_report(dataset=dataset, campaign=campaign, seed=seed,
                          exclude_below_control=exclude_below_control) is not None
