"""Reports computed off the request path (services: the writes of StoredReport, and the
background tasks of django-tasks that run them).

A report is computed for a data version (annotation.results.selectors.dataset_version: what
answers, adjudications, withdrawals, gold, model submissions and training settings it saw), a
seed and the option; each computation is one StoredReport row, unique per (target, version,
seed, option), so two requests never start two computations of one version. The worker
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
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import default_task_backend, task

from annotation.core.snapshot import one_snapshot
from annotation.models import Campaign, Dataset, StoredReport
from annotation.results import selectors
from annotation.results.formats import FORMATS, campaign_file, report_file
from annotation.results.plots import report_plots
from annotation.results.report import campaign_report, dataset_report

# A computation still "running" this long after it was asked for died with its worker.
ABANDONED = timedelta(minutes=20)


def _version(dataset: Dataset | None, campaign: Campaign | None) -> dict:
    return selectors.dataset_version(dataset) if dataset is not None else selectors.campaign_version(campaign)


def request_report(*, dataset: Dataset | None = None, campaign: Campaign | None = None, seed: int,
                   exclude_below_control: bool, now_asked: bool = False,
                   version: dict | None = None) -> StoredReport | None:
    """Start the computation of the report of the data as it is now, unless one is current,
    under way, or (not ``now_asked``) the last one was asked for less than
    ``POLIS_REPORT_REFRESH`` ago while a finished one can be served. Returns the row of the
    computation started (or found for this version), or None when nothing was started."""
    target = {"dataset": dataset} if dataset is not None else {"campaign": campaign}
    options = {"seed": seed, "exclude_below_control": exclude_below_control}
    version = _version(dataset, campaign) if version is None else version
    key = selectors.version_key(version)
    newest = selectors.newest_report(**target, **options)
    if newest is not None and selectors.version_key(newest.seen) == key:
        return None  # current
    latest = selectors.latest_request(**target, **options)
    if latest is not None and latest.status in (StoredReport.Status.PENDING, StoredReport.Status.RUNNING) \
            and latest.requested_at > timezone.now() - ABANDONED:
        return None  # under way
    if not now_asked and newest is not None and latest is not None \
            and latest.requested_at > timezone.now() - settings.POLIS_REPORT_REFRESH:
        return None  # the last one is recent enough: the finished one is served meanwhile
    row, created = StoredReport.objects.get_or_create(version=key, **target, **options)
    if not created:
        with transaction.atomic():
            row = StoredReport.objects.select_for_update().get(pk=row.pk)
            retry = row.status == StoredReport.Status.FAILED or (
                row.status in (StoredReport.Status.PENDING, StoredReport.Status.RUNNING)
                and row.requested_at <= timezone.now() - ABANDONED)
            if not retry:
                return row
            row.status, row.error, row.requested_at = StoredReport.Status.PENDING, "", timezone.now()
            row.save(update_fields=["status", "error", "requested_at"])
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
    seed and option (only ``fields`` of its stored parts, if given), after starting a
    computation when it is missing or of older data (``request_report``'s rules: at most once
    per POLIS_REPORT_REFRESH; with the immediate backend of the tests, inline)."""
    target = {"dataset": dataset} if dataset is not None else {"campaign": campaign}
    options = {"seed": seed, "exclude_below_control": exclude_below_control}
    version = _version(dataset, campaign)
    request_report(**target, **options, version=version)
    stored = selectors.newest_report(**target, **options, fields=fields)
    latest = selectors.latest_request(**target, **options)
    return Served(stored, selectors.freshness(stored, latest, version))


def run_computation(pk: int) -> bool:
    """Compute the waiting StoredReport ``pk``: the report, its plots and files, what it saw.
    False when it was not waiting (taken by another worker, or done)."""
    with transaction.atomic():
        row = StoredReport.objects.select_for_update(skip_locked=True).filter(
            pk=pk, status=StoredReport.Status.PENDING).first()
        if row is None:
            return False
        row.status = StoredReport.Status.RUNNING
        row.save(update_fields=["status"])
    options = {"seed": row.seed, "exclude_below_control": row.exclude_below_control}
    try:
        with one_snapshot():
            if row.dataset_id is not None:
                seen = selectors.dataset_version(row.dataset)
                report = dataset_report(row.dataset, **options)
            else:
                seen = selectors.campaign_version(row.campaign)
                report = campaign_report(row.campaign, **options)
        if row.dataset_id is not None:
            plots = report_plots(report)
            files = {fmt: report_file(report, plots, fmt) for fmt in FORMATS}
        else:
            plots, files = [], {fmt: campaign_file(report, fmt) for fmt in FORMATS}
    except Exception as error:
        StoredReport.objects.filter(pk=pk).update(status=StoredReport.Status.FAILED, error=repr(error)[:2000])
        raise
    StoredReport.objects.filter(pk=pk).update(
        status=StoredReport.Status.DONE, seen=seen, report=report, plots=[dataclasses.asdict(plot) for plot in plots],
        files=files, computed_at=timezone.now())
    _look_again_later(row)
    return True


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
