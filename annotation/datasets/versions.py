"""The data version a dataset's derived figures are computed for (reads only): what a report
(annotation.results.computing) and the gold audit's Dawid–Skene posteriors
(annotation.datasets.auditing) depend on, as a few aggregates, and its digest."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from django.db import connection
from django.db.models import DateTimeField, Q

from annotation.answers.counted import uncounted_sql
from annotation.core.sql_rows import loaded_value, table
from annotation.models import (
    Adjudication,
    AdjudicationRevision,
    Annotation,
    Dataset,
    GoldAnswer,
    GoldAuditDecision,
    Item,
    ModelSubmission,
    Study,
    StudyParticipant,
    TrainingAnswer,
    TrainingRound,
)

SETTINGS = ("name", "subtask", "frozen", "gold_synthetic", "threshold", "control_rate", "control_seed", "pool_kind",
            "archived_at", "sample_size", "sample_seed", "sample_field")


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
    # The gold audit's decisions (each correction's gold version made with its decision): the
    # audited gold a report scores beside the original.
    ("audit", ("n", "last_id"),
     "SELECT COUNT(*), MAX(d.id) FROM {GoldAuditDecision} d JOIN {Item} x ON x.id = d.item_id WHERE x.dataset_id IN {all}"),
)


def _version_row(dataset_id: int, in_ids: list[int]) -> dict:
    """Every part of _VERSION_PARTS in one statement: a cross join of one-row aggregates."""
    models = {model.__name__: table(model) for model in (
        Item, Annotation, Adjudication, AdjudicationRevision, GoldAnswer, ModelSubmission, TrainingRound, TrainingAnswer,
        GoldAuditDecision, StudyParticipant, Study)}
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
    answers, who counts among its study participants and the gold audit's decisions
    (_VERSION_PARTS)."""
    ids = Q(pk=dataset.pk) | Q(pool_of=dataset.pk)
    datasets = sorted((_plain(row) for row in Dataset.objects.filter(ids).values("pk", *SETTINGS)),
                      key=lambda row: row["pk"])
    parts = _version_row(dataset.pk, [row["pk"] for row in datasets])
    return {"dataset": dataset.pk, "settings": datasets, **{part: parts[part] for part, _names, _sql in _VERSION_PARTS}}


def version_key(version: dict) -> str:
    """The digest a computation is stored under."""
    return hashlib.sha256(json.dumps(version, sort_keys=True, default=str).encode()).hexdigest()
