"""What the organizer's results pages list and read: campaigns, the data version a report is
computed for (a dataset's: annotation.datasets.versions), the newest finished report and what
changed since (the reports themselves are built by annotation.results.report, computed by
annotation.results.computing)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.answers.counted import counted_answers
from annotation.datasets.versions import dataset_version, version_key
from annotation.models import Annotation, Campaign, Dataset, StoredReport, StoredReportPart


def campaigns() -> QuerySet[Campaign]:
    """Every campaign by name, with its datasets."""
    return Campaign.objects.prefetch_related("datasets").order_by("name")


def campaign_version(campaign: Campaign) -> dict:
    """The data versions of the campaign's datasets, by dataset id, and the human source it shows."""
    return {"datasets": {str(dataset.pk): dataset_version(dataset) for dataset in campaign.datasets.order_by("pk")},
            "human_source": campaign.human_source}


def _target(dataset: Dataset | None, campaign: Campaign | None) -> Q:
    return Q(dataset=dataset.pk) if dataset is not None else Q(campaign=campaign.pk)


STORED_PARTS = ("report", "plots")


def newest_report(*, dataset: Dataset | None = None, campaign: Campaign | None = None, seed: int,
                  exclude_below_control: bool, fields: tuple[str, ...] = STORED_PARTS) -> StoredReport | None:
    """The newest finished computation of the report for this seed and option, or None; only
    ``fields`` of its large fields (report, plots) are read."""
    found = StoredReport.objects.filter(_target(dataset, campaign), seed=seed, exclude_below_control=exclude_below_control,
                                        status=StoredReport.Status.DONE)
    return found.defer(*(part for part in STORED_PARTS if part not in fields)).order_by("-computed_at", "-pk").first()


def latest_request(*, dataset: Dataset | None = None, campaign: Campaign | None = None, seed: int,
                   exclude_below_control: bool) -> StoredReport | None:
    """The computation asked for last (finished or not), without its report."""
    return (StoredReport.objects.filter(_target(dataset, campaign), seed=seed, exclude_below_control=exclude_below_control)
            .defer(*STORED_PARTS).order_by("-requested_at", "-pk").first())


def report_part(stored: StoredReport, kind: str, key: str) -> str | None:
    """What a computed report serves as it is: a download, a plot, the page's body, the API's JSON."""
    return StoredReportPart.objects.filter(stored=stored.pk, kind=kind, key=key).values_list("content", flat=True).first()


def stored_report(pk: int) -> StoredReport:
    """A stored report with every part (to draw its body in a language it was not drawn in)."""
    return StoredReport.objects.select_related("dataset", "campaign").get(pk=pk)


@dataclass(frozen=True)
class Freshness:
    """How the report served stands to the data now."""

    current: bool  # computed on the data as it is
    changes: list[str]  # what changed since, in words ("37 new answers")
    computing: bool  # a newer computation waits or runs
    failed: str  # the last computation's error, if it failed


def _datasets_of(version: dict) -> list[dict]:
    return list(version["datasets"].values()) if "datasets" in version else [version]


def _sum(versions: list[dict], part: str, key: str) -> int:
    return sum(version[part][key] or 0 for version in versions)


def changes_since(seen: dict, now: dict, dataset_ids: list[int]) -> list[str]:
    """What differs between the data a report saw and the data now, in words; the new answers
    are the answers submitted after the last submission the report saw (one query)."""
    before, after = _datasets_of(seen), _datasets_of(now)
    changes = []
    last = [parse_datetime(version["answers"]["last_submitted"]) for version in before
            if version["answers"]["last_submitted"]]
    answers = counted_answers(Annotation.objects.filter(item__dataset__in=dataset_ids))
    if last:
        answers = answers.filter(submitted_at__gt=max(last))
    new = answers.count() if seen != now else 0
    if new:
        changes.append(ngettext("%(count)d new answer", "%(count)d new answers", new) % {"count": new})
    elif [v["answers"] for v in before] != [v["answers"] for v in after]:
        changes.append(_changed("answers"))
    for part, words in (("decisions", "decisions"), ("items", "withdrawals"), ("gold", "gold"), ("models", "models"),
                        ("training", "training"), ("training_answers", "training"), ("audit", "audit"),
                        ("settings", "settings"), ("participants", "participants")):
        if [v.get(part) for v in before] != [v.get(part) for v in after]:
            text = _changed(words)
            if text not in changes:
                changes.append(text)
    if "datasets" in seen and set(seen["datasets"]) != set(now["datasets"]):
        changes.append(_changed("datasets"))
    return changes


def _changed(what: str) -> str:
    return {
        "answers": _("answers changed"),
        "decisions": _("new adjudications"),
        "withdrawals": _("items withdrawn or restored"),
        "gold": _("gold changed"),
        "models": _("model submissions changed"),
        "training": _("training rounds changed"),
        "audit": _("new decisions of the gold audit"),
        "settings": _("settings changed"),
        "participants": _("the study participants who count changed"),
        "datasets": _("the campaign's datasets changed"),
    }[what]


def freshness(stored: StoredReport | None, latest: StoredReport | None, now: dict) -> Freshness:
    """The served report ``stored`` against the data version ``now`` and the last request ``latest``."""
    computing = latest is not None and latest.status in (StoredReport.Status.PENDING, StoredReport.Status.RUNNING)
    failed = latest.error if latest is not None and latest.status == StoredReport.Status.FAILED else ""
    if stored is None:
        return Freshness(False, [], computing, failed)
    current = version_key(stored.seen) == version_key(now)
    ids = [version["dataset"] for version in _datasets_of(now)]
    return Freshness(current, [] if current else changes_since(stored.seen, now, ids), computing, failed)


def answer_times(dataset: Dataset) -> list[tuple[str, str, int, datetime, datetime]]:
    """Every submitted answer that counts (annotation.answers.counted) of the items that count
    (annotation.results.agreement.counted_items), as the report's time reads them: (username,
    item id, active ms, started, submitted), by username then input order. One query."""
    return list(
        counted_answers(Annotation.objects.filter(item__dataset=dataset, item__withdrawn_at__isnull=True))
        .order_by("annotator__username", "item__ordinal")
        .values_list("annotator__username", "item__external_id", "active_ms", "created_at", "submitted_at")
    )
