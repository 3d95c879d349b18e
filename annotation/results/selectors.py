"""What the organizer's results pages list and read: campaigns, the data version a report
is computed for, the newest finished report and what changed since (the reports themselves
are built by annotation.results.report, computed by annotation.results.computing)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import DateTimeField, Q, QuerySet
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.answers.counted import counted_answers, uncounted_sql
from annotation.core.sql_rows import loaded_value, table
from annotation.models import (
    Adjudication,
    AdjudicationRevision,
    Annotation,
    Campaign,
    Dataset,
    GoldAnswer,
    Item,
    ModelSubmission,
    StoredReport,
    StoredReportPart,
    Study,
    StudyParticipant,
    TrainingAnswer,
    TrainingRound,
)

SETTINGS = ("name", "subtask", "frozen", "gold_synthetic", "threshold", "control_rate", "control_seed", "pool_kind",
            "archived_at", "sample_size", "sample_seed", "sample_field")


def campaigns() -> QuerySet[Campaign]:
    """Every campaign by name, with its datasets."""
    return Campaign.objects.prefetch_related("datasets").order_by("name")


def _plain(row: dict) -> dict:
    return {key: value.isoformat() if isinstance(value, datetime) else value for key, value in row.items()}


# The parts of a data version, each a few aggregates over the rows a report reads: (part, its
# names, the SQL of its one row; ``last_*`` but ``last_id`` are times). ``{own}``: the
# dataset; ``{all}``: it and its pools. One statement reads them all (a round trip per part
# had been most of the version's time on a loaded machine).
_VERSION_PARTS = (
    ("items", ("n", "withdrawn", "last_withdrawn", "last_id"),
     "SELECT COUNT(*), COUNT(x.withdrawn_at), MAX(x.withdrawn_at), MAX(x.id) FROM {Item} x WHERE x.dataset_id IN {all}"),
    ("answers", ("n", "submitted", "last_changed", "last_submitted", "last_id"),
     "SELECT COUNT(*), COUNT(CASE WHEN a.status = 'submitted' THEN 1 END), MAX(a.updated_at), MAX(a.submitted_at),"
     " MAX(a.id) FROM {Annotation} a JOIN {Item} x ON x.id = a.item_id WHERE x.dataset_id IN {all}"),
    ("adjudications", ("n", "last_decided"),
     "SELECT COUNT(*), MAX(j.decided_at) FROM {Adjudication} j JOIN {Item} x ON x.id = j.item_id WHERE x.dataset_id = {own}"),
    ("decisions", ("n", "last_id"),
     "SELECT COUNT(*), MAX(r.id) FROM {AdjudicationRevision} r JOIN {Adjudication} j ON j.id = r.adjudication_id"
     " JOIN {Item} x ON x.id = j.item_id WHERE x.dataset_id = {own}"),
    ("gold", ("n", "last_id"),
     "SELECT COUNT(*), MAX(g.id) FROM {GoldAnswer} g JOIN {Item} x ON x.id = g.item_id WHERE x.dataset_id IN {all}"),
    ("models", ("n", "last_id"), "SELECT COUNT(*), MAX(m.id) FROM {ModelSubmission} m WHERE m.dataset_id = {own}"),
    ("training", ("n", "finished", "last_finished", "released", "last_released"),
     "SELECT COUNT(*), COUNT(t.finished_at), MAX(t.finished_at), COUNT(t.released_at), MAX(t.released_at)"
     " FROM {TrainingRound} t WHERE t.dataset_id = {own}"),
    ("training_answers", ("n", "last_id"),
     "SELECT COUNT(*), MAX(b.id) FROM {TrainingAnswer} b JOIN {TrainingRound} t ON t.id = b.round_id"
     " WHERE t.dataset_id = {own}"),
    # Who counts (annotation.answers.counted): how many of the study participants with answers
    # here do not count, the latest time one was found missing from the panel's export and the
    # latest reconciliation, so that a reconciliation that changes who counts changes the
    # version. Read from the participants (few), each one's answers found by the annotator's index.
    ("participants", ("uncounted", "last_unreconciled", "last_reconciled"),
     "SELECT COUNT(CASE WHEN p.user_id IN ({uncounted}) THEN 1 END), MAX(p.unreconciled_at), MAX(s.reconciled_at)"
     " FROM {StudyParticipant} p JOIN {Study} s ON s.id = p.study_id WHERE EXISTS (SELECT 1 FROM {Annotation} a"
     " JOIN {Item} x ON x.id = a.item_id WHERE a.annotator_id = p.user_id AND x.dataset_id IN {all})"),
)


def _version_row(dataset_id: int, in_ids: list[int]) -> dict:
    """Every part of _VERSION_PARTS in one statement: a cross join of one-row aggregates."""
    models = {model.__name__: table(model) for model in (
        Item, Annotation, Adjudication, AdjudicationRevision, GoldAnswer, ModelSubmission, TrainingRound, TrainingAnswer,
        StudyParticipant, Study)}
    every = "(" + ", ".join(["%s"] * len(in_ids)) + ")"
    selects, params = [], []
    for number, (_part, _names, sql) in enumerate(_VERSION_PARTS):
        # The placeholders of one part in their order: the dataset's ids, or its own id.
        params += in_ids if "{all}" in sql else [dataset_id]
        selects.append(f"({sql.format(**models, all=every, own='%s', uncounted=uncounted_sql())}) AS p{number}")
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM " + " CROSS JOIN ".join(selects), params)
        row = list(cursor.fetchone())
    version = {}
    for part, names, _sql in _VERSION_PARTS:
        values, row = row[: len(names)], row[len(names):]
        version[part] = {name: _moment(value) if name.startswith("last_") and name != "last_id" else value
                         for name, value in zip(names, values)}
    return version


_TIME = DateTimeField()


def _moment(value) -> str | None:
    """A time of the version as the ORM gave it: aware (SQLite's MAX hands text over), ISO 8601."""
    return None if value is None else loaded_value(_TIME, _TIME.to_python(value)).isoformat()


def dataset_version(dataset: Dataset) -> dict:
    """What a report of ``dataset`` depends on, in two queries whatever its size: its settings
    and its pools', and the counts, latest times and ids of its (and its pools') answers,
    revisions, adjudications, withdrawn items, gold, model submissions, training rounds and
    answers, and who counts among its study participants (_VERSION_PARTS)."""
    ids = Q(pk=dataset.pk) | Q(pool_of=dataset.pk)
    datasets = sorted((_plain(row) for row in Dataset.objects.filter(ids).values("pk", *SETTINGS)),
                      key=lambda row: row["pk"])
    parts = _version_row(dataset.pk, [row["pk"] for row in datasets])
    return {"dataset": dataset.pk, "settings": datasets, **{part: parts[part] for part, _names, _sql in _VERSION_PARTS}}


def campaign_version(campaign: Campaign) -> dict:
    """The data versions of the campaign's datasets, by dataset id, and the human source it shows."""
    return {"datasets": {str(dataset.pk): dataset_version(dataset) for dataset in campaign.datasets.order_by("pk")},
            "human_source": campaign.human_source}


def version_key(version: dict) -> str:
    """The digest a computation is stored under."""
    return hashlib.sha256(json.dumps(version, sort_keys=True, default=str).encode()).hexdigest()


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
                        ("training", "training"), ("training_answers", "training"), ("settings", "settings"),
                        ("participants", "participants")):
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
