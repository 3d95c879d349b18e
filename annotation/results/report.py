"""The human-baseline report of a dataset, and the campaign table of several.

Every score and interval is what `python -m scoring score --json --ci N --seed S` prints for
an exported source: each source is exported as the submission lines its download holds, and
those bytes, with the dataset's gold as a JSONL file, are read as `scoring.evaluate.score_files`
reads them (`read_gold`, `read_predictions`: each file once) and scored by its own
`score_records` (and `compare_records` for a model beside a human source) — the scorer's own
code, never a second implementation. Annotators are scored on the items they answered (``--only-answered``,
with coverage); majority, adjudicated and model sources on all gold (a missing item counts
as wrong).
"""

from __future__ import annotations

import gc
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from django.utils import timezone

from annotation.core.errors import Refused
from annotation.core.snapshot import one_snapshot
from annotation.models import Campaign, Dataset, GoldAnswer, ModelSubmission
from annotation.results.exporting import POOLED, DatasetReads, Export, build_export
from annotation.training.selectors import training_procedure
from scoring.agreement import agreement_figures
from scoring.breakdown import breakdown
from scoring.evaluate import Counted, compare_records, read_gold, read_predictions, resample_together, score_records
from scoring.intervals import interval_keys, units
from scoring.jsonl import jsonl_bytes
from scoring.subtasks import SUBTASKS, Subtask, get_subtask

RESAMPLES = 1000


DEFAULT_SEED = 0


SYNTHETIC_BANNER = "synthetic gold — not a human baseline"


SYNTHETIC_FOOTNOTE = "the gold of this dataset is synthetic (made to test the software): no score is reported"


HUMAN_COLUMNS = ("best annotator", "mean annotator", "majority", "adjudicated")


# Figures of `score --json` that are not secondary metrics.
SCORE_KEYS = {"score", "ci_low", "ci_high", "coverage"}


MEAN_NO_INTERVAL = "the mean of several annotators' scores is no one submission, so it has no bootstrap interval"


@dataclass(frozen=True)
class Exported:
    """One source as the submission file its download holds."""

    source: str  # "annotator:NAME", "majority", "adjudicated", "model:NAME"
    kind: str  # annotator | majority | adjudicated | model
    name: str
    filename: str
    file: Export | bytes  # the export (whose bytes are made when first asked for), or a model's stored file
    only_answered: bool  # scored on the gold items it answers (an annotator), else on all gold
    left_out: Counter = field(default_factory=Counter)  # items the export leaves out, by reason
    records: list[dict] | None = None  # the lines of ``data`` when the application made them (an export)

    @property
    def data(self) -> bytes:
        """The file's bytes."""
        return self.file.data if isinstance(self.file, Export) else self.file


@dataclass(frozen=True)
class Unavailable:
    """A source that could not be exported, and why."""

    source: str
    kind: str
    reason: str


def gold_file(dataset: Dataset) -> tuple[bytes, str]:
    """The dataset's gold lines in input order, as the JSONL file the scorer reads, and its name.
    Withdrawn items (broken, taken out by an organizer) are in no export and scored for no one."""
    gold = list(
        GoldAnswer.objects.filter(item__dataset=dataset, item__withdrawn_at__isnull=True)
        .order_by("item__ordinal").values_list("payload", flat=True)
    )
    marker = "SYNTHETIC-gold" if dataset.gold_synthetic else "gold"
    return jsonl_bytes(gold), f"{dataset.name}.{marker}.jsonl"


def human_sources(reads: DatasetReads, excluded: frozenset[str] = frozenset()) -> list[Exported | Unavailable]:
    """Every annotator with a submitted answer, by username, and the pooled sources (majority,
    adjudicated: without the answers of ``excluded`` usernames), each as the file its download
    holds (``annotation.results.exporting.build_export``, every source from one read)."""
    sources: list[Exported | Unavailable] = []
    for source in [*(f"annotator:{username}" for username in reads.answers.annotators), *POOLED]:
        kind = source.partition(":")[0]
        try:
            export = build_export(reads.dataset, source, reads=reads, excluded=excluded if kind in POOLED else ())
        except Refused as refused:
            sources.append(Unavailable(source, kind, "; ".join(refused.messages)))
            continue
        sources.append(Exported(source, kind, source.partition(":")[2] or source, export.filename, export,
                                only_answered=kind == "annotator", records=export.records,
                                left_out=Counter(reason for _, reason in export.left_out)))
    return sources


def model_sources(dataset: Dataset) -> list[Exported]:
    return [
        Exported(f"model:{model.name}", "model", model.name, model.filename, bytes(model.data), only_answered=False)
        for model in ModelSubmission.objects.filter(dataset=dataset).order_by("name")
    ]


@dataclass(frozen=True)
class ReadSource:
    """A source's file as the scorer reads it (``scoring.evaluate.read_predictions``), read once,
    and the count rows of the gold lines it is scored on with their resampled figures, counted
    once for its score, its interval, its breakdown and every comparison it is in."""

    exported: Exported
    pred: dict[str, dict]
    errors: list
    n_faults: int
    lines: list[dict]  # the gold lines it is scored on, in unit order (``units``; none after an error)
    counted: Counted  # those lines


def read_source(subtask: Subtask, gold: list[dict], gold_ids: set[str], exported: Exported) -> ReadSource:
    """The source as `score` reads its file. An export's own lines are what reading its bytes
    gives (they were checked against the inputs, a stricter check than the scorer's), so they
    are taken as they are when every id has gold; a model's stored file is read."""
    if exported.records is not None and all(record["id"] in gold_ids for record in exported.records):
        pred, errors, n_faults = {record["id"]: record for record in exported.records}, [], 0
    else:
        pred, errors, faults = read_predictions(subtask, exported.data, exported.filename, gold_ids)
        n_faults = len(faults)
    scored = [record for record in gold if record["id"] in pred] if exported.only_answered else gold
    lines = [] if errors else units(scored)
    return ReadSource(exported, pred, errors, n_faults, lines, Counted(subtask, lines, pred))


def resample_sources(humans: list[ReadSource], models: list[ReadSource], resamples: int, seed: int) -> None:
    """Computes the resampled figures of every interval of the report (each source's on its
    lines, each model's on the lines of each human source it is compared with) with one product
    per set of lines (``scoring.evaluate.resample_together``); scoring and comparing then find
    them kept."""
    groups: dict[tuple[str, ...], tuple[list[dict], list[Counted]]] = {}  # line ids -> lines, predictions
    wanted = [(read.lines, [read]) for read in [*humans, *models]] + [(human.lines, models) for human in humans]
    for lines, sources in wanted:
        groups.setdefault(tuple(record["id"] for record in lines), (lines, []))[1].extend(read.counted for read in sources)
    for lines, counted in groups.values():
        resample_together(list(dict.fromkeys(counted)), lines, resamples, seed)  # each prediction once


def score_source(subtask: Subtask, gold: list[dict], read: ReadSource, resamples: int, seed: int) -> dict:
    """One source's row of the report: what `score --json --ci` prints for its export (the
    scorer's ``score_records`` on the file as ``score_files`` reads it), and the per-subtask
    breakdown on the same scored gold lines."""
    exported, pred = read.exported, read.pred
    row = {"source": exported.source, "kind": exported.kind, "name": exported.name,
           "scored_on": "answered items" if exported.only_answered else "all gold items", "available": True}
    if read.errors:  # an export is checked before it is scored: only a stored model file could get here
        return row | {"available": False, "reason": "; ".join(str(error) for error in read.errors)}
    metrics = score_records(subtask, gold, pred, read.n_faults, exported.only_answered, resamples, seed,
                            read.counted)
    answered = [record for record in gold if record["id"] in pred]
    return row | {
        "score": metrics["score"],
        "intervals": {figure: [metrics.get(low), metrics.get(high)] for figure, low, high in interval_keys(subtask)},
        "n_scored": metrics["n_gold"],
        "n_missing": metrics["n_missing"],
        "n_answered": len(pred),
        "left_out": dict(exported.left_out),
        "coverage": len(answered) / len(gold),
        "answer_faults": read.n_faults,
        "metrics": metrics,
        "secondary": {name: value for name, value in metrics.items()
                      if isinstance(value, float) and name not in SCORE_KEYS and "_ci_" not in name},
        "breakdown": breakdown(subtask.key, answered if exported.only_answered else gold, pred,
                               read.counted.rows_by_id),
    }


def compare_source(subtask: Subtask, gold: list[dict], human: ReadSource, model: ReadSource,
                   resamples: int, seed: int) -> dict:
    """`compare --pred HUMAN --pred MODEL --ci` (the scorer's ``compare_records``): diff =
    human - model, paired; on the human's answered items when the human covers a subset."""
    only_answered = human.exported.only_answered
    metrics = compare_records(subtask, gold, human.pred, model.pred, only_answered, resamples, seed,
                              (human.counted, model.counted))
    return {
        "human": human.exported.source, "model": model.exported.source, "only_answered": only_answered,
        "score_human": metrics["score_a"], "score_model": metrics["score_b"], "diff": metrics["diff"],
        "diff_ci": [metrics.get("diff_ci_low"), metrics.get("diff_ci_high")], "n_scored": metrics["n_gold"],
    }


def _time_figures(active_ms: list[int]) -> dict:
    if not active_ms:
        return {"n_items": 0, "median_s": None, "q1_s": None, "q3_s": None, "iqr_s": None, "total_hours": 0.0}
    seconds = np.asarray(active_ms, dtype=np.float64) / 1000
    q1, median, q3 = (float(value) for value in np.percentile(seconds, [25, 50, 75]))
    return {"n_items": len(active_ms), "median_s": median, "q1_s": q1, "q3_s": q3, "iqr_s": q3 - q1,
            "total_hours": float(seconds.sum()) / 3600}


def time_report(active_ms: dict[str, list[int]]) -> dict:
    """Active time per submitted answer (``active_ms``: username -> milliseconds of each):
    median and interquartile range (numpy's linear percentiles) per annotator and overall,
    and the annotators' total hours."""
    everyone = [value for values in active_ms.values() for value in values]
    overall = _time_figures(everyone)
    return {
        "per_annotator": [{"annotator": name, **_time_figures(values)} for name, values in sorted(active_ms.items())],
        "overall": overall,
        "total_hours": overall["total_hours"],
        "active_seconds": [value / 1000 for value in everyone],
    }


EXCLUSION_NOTE = ("annotators below the control threshold are left out of the majority and adjudicated sources: "
                  "their answers do not count there (their own rows are still reported)")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for a report, then one full collection.

    A report of a large dataset makes about a million objects that nearly all live until it
    returns (the answers read, the lines, the tables); with the collector running, its full
    passes over the growing heap took a quarter of the report's time (eight passes, 0.7 s of
    2.8 s at 10,000 commas items x 5 annotators) and found nothing to free but short cycles
    (a closure fastjsonschema makes for each array it checks), which the collection at the end
    frees. Nothing is paused when the collector is off already (a campaign's reports)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


@collector_paused()
@one_snapshot()
def dataset_report(dataset: Dataset, *, resamples: int = RESAMPLES, seed: int = DEFAULT_SEED,
                   exclude_below_control: bool = False) -> dict:
    """Everything the report of ``dataset`` says, as plain JSON values. With
    ``exclude_below_control``, the annotators whose control-item accuracy is below the
    dataset's threshold do not count in the majority and adjudicated sources (``excluded``
    says who, and the export command's ``--exclude-below-control`` gives the same files)."""
    subtask = get_subtask(dataset.subtask)
    gold_data, gold_name = gold_file(dataset)
    gold, gold_errors = read_gold(subtask, gold_data, gold_name)
    gold_ids = {record["id"] for record in gold}
    # Stored gold was checked on import, so a fault here is a fault of the database.
    no_score = "; ".join(map(str, gold_errors)) or (None if gold else "the dataset has no gold")
    procedure = training_procedure(dataset)
    # The same list as below_control_threshold(dataset), which the export command and API use.
    excluded = frozenset(procedure["below_control_threshold"] if exclude_below_control else ())
    reads = DatasetReads(dataset)
    entries: list[dict | ReadSource] = []  # a source's row when it cannot be scored, else the source read
    for exported in [*human_sources(reads, excluded), *model_sources(dataset)]:
        if isinstance(exported, Unavailable) or no_score:
            reason = exported.reason if isinstance(exported, Unavailable) else no_score
            entries.append({"source": exported.source, "kind": exported.kind, "available": False, "reason": reason})
        else:
            entries.append(read_source(subtask, gold, gold_ids, exported))
    scored = [entry for entry in entries if isinstance(entry, ReadSource) and not entry.errors]
    humans = [read for read in scored if read.exported.kind != "model"]
    models = [read for read in scored if read.exported.kind == "model"]
    if resamples:
        resample_sources(humans, models, resamples, seed)
    rows = [score_source(subtask, gold, entry, resamples, seed) if isinstance(entry, ReadSource) else entry
            for entry in entries]
    comparisons = [compare_source(subtask, gold, human, model, resamples, seed) for model in models for human in humans]
    return {
        "dataset": dataset.name,
        "dataset_id": dataset.pk,
        "subtask": dataset.subtask,
        "subtask_title": get_subtask(dataset.subtask).title,
        "computed_at": timezone.now().isoformat(),
        "frozen": dataset.frozen,
        "gold_synthetic": dataset.gold_synthetic,
        "banner": SYNTHETIC_BANNER if dataset.gold_synthetic else None,
        "n_items": dataset.items.count(),
        "n_gold": len(gold),
        "n_withdrawn": len(reads.withdrawn),
        "resamples": resamples,
        "seed": seed,
        "confidence": 0.95,
        "sources": rows,
        "comparisons": comparisons,
        "time": time_report(reads.answers.active_ms),
        # What `python -m scoring agreement --json` prints for the annotators' exports.
        "agreement": agreement_figures(dataset.subtask, reads.answers.table),
        # How the annotators were trained, qualified and controlled.
        "procedure": procedure,
        # Who does not count in the pooled sources (the option to leave out annotators below
        # the control threshold), or None when every annotator counts.
        "excluded": {"annotators": sorted(excluded), "reason": "below_control_threshold", "note": EXCLUSION_NOTE}
        if exclude_below_control else None,
    }


def _cell(row: dict | None) -> dict | None:
    if row is None or not row.get("available"):
        return None
    low, high = row["intervals"]["score"]
    return {"score": row["score"], "ci_low": low, "ci_high": high, "source": row["source"]}


def campaign_cells(report: dict) -> dict[str, dict | None]:
    """One dataset's cells of the campaign table: column -> {score, ci_low, ci_high} or None."""
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for row in report["sources"]:
        if row.get("available"):
            by_kind[row["kind"]].append(row)
    annotators = by_kind["annotator"]
    best = max(annotators, key=lambda row: row["score"], default=None)
    cells: dict[str, dict | None] = {
        "best annotator": _cell(best),
        "mean annotator": {
            "score": statistics.fmean(row["score"] for row in annotators), "ci_low": None, "ci_high": None,
            "n_annotators": len(annotators), "reason": MEAN_NO_INTERVAL,
        } if annotators else None,
        "majority": _cell(next(iter(by_kind["majority"]), None)),
        "adjudicated": _cell(next(iter(by_kind["adjudicated"]), None)),
    }
    for row in by_kind["model"]:
        cells[f"model:{row['name']}"] = _cell(row)
    return cells


@one_snapshot()
def campaign_report(campaign: Campaign, *, resamples: int = RESAMPLES, seed: int = DEFAULT_SEED,
                    exclude_below_control: bool = False) -> dict:
    """The campaign table: the six subtasks as rows, the human sources and every model as
    columns; a dataset with synthetic gold puts no number in it (its cells are None, with a footnote)."""
    datasets = {dataset.subtask: dataset for dataset in campaign.datasets.all()}
    reports = {key: dataset_report(dataset, resamples=resamples, seed=seed, exclude_below_control=exclude_below_control)
               for key, dataset in datasets.items()}
    models = sorted({f"model:{row['name']}" for report in reports.values() for row in report["sources"]
                     if row["kind"] == "model"})
    columns = [*HUMAN_COLUMNS, *models]
    rows, footnotes = [], []
    for key in SUBTASKS:
        report = reports.get(key)
        row = {"subtask": key, "title": get_subtask(key).title, "dataset": report["dataset"] if report else None,
               "dataset_id": report["dataset_id"] if report else None,
               "gold_synthetic": bool(report and report["gold_synthetic"]), "footnote": None}
        cells = campaign_cells(report) if report else {}
        if report and report["gold_synthetic"]:
            cells = {}
            footnotes.append({"subtask": key, "dataset": report["dataset"], "text": SYNTHETIC_FOOTNOTE})
            row["footnote"] = len(footnotes)
        row["cells"] = {column: cells.get(column) for column in columns}
        rows.append(row)
    return {
        "campaign": campaign.name,
        "campaign_id": campaign.pk,
        "computed_at": timezone.now().isoformat(),
        "resamples": resamples,
        "seed": seed,
        "confidence": 0.95,
        "gold_synthetic": any(report["gold_synthetic"] for report in reports.values()),
        "columns": columns,
        "rows": rows,
        "footnotes": footnotes,
        "notes": {"mean annotator": MEAN_NO_INTERVAL, **({"excluded": EXCLUSION_NOTE} if exclude_below_control else {})},
        "exclude_below_control": exclude_below_control,
        "datasets": list(reports.values()),
    }
