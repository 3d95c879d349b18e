"""The human-baseline report of a dataset, and the campaign table of several.

Every score and interval is what `python -m scoring score --json --ci N --seed S` prints for
an exported source: each source is exported as the submission lines its download holds, and
those bytes, with the dataset's gold as a JSONL file, are read as `scoring.evaluate.score_files`
reads them (`read_gold`, `read_predictions`: each file once) and scored by its own
`score_records` (and `compare_records` for a model beside a human source, `group_figures` for
the mean annotator) — the scorer's own code, never a second implementation.

Humans and models are compared on the same items: an annotator is scored on what they
submitted (``--only-answered``, with coverage); the pooled sources (majority, adjudicated,
majority filled with adjudications, Dawid–Skene where the subtask offers it) on the complete items (``--items``: every answer in, at
least two), where an item without an answer of the source counts as missing; a model beside a
human source on exactly that source's items, with the paired tests of scoring.significance for
the pooled sources; models alone on all gold.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from statistics import fmean

import numpy as np
from django.utils import timezone

from annotation.core.errors import Refused
from annotation.core.snapshot import one_snapshot
from annotation.datasets.auditing import audited_gold
from annotation.datasets.sampling import sample_ids
from annotation.models import Campaign, Dataset, GoldAnswer, Item, ModelSubmission
from annotation.results.exporting import DatasetReads, Export, build_export, pilot_ids
from annotation.results.formats import p_figure, percent
from annotation.training.selectors import training_procedure
from scoring.agreement import agreement_figures
from scoring.annotators import group_figures
from scoring.breakdown import breakdown
from scoring.dawid_skene import not_offered_reason, offered
from scoring.difficulty import HUMANS_ONLY, MODELS_ONLY, alone_right
from scoring.evaluate import (
    Counted,
    compare_records,
    read_gold,
    read_predictions,
    resample_together,
    score_records,
    scored_gold,
)
from scoring.intervals import interval_keys, score_intervals, units
from scoring.jsonl import jsonl_bytes
from scoring.significance import holm
from scoring.subtasks import SUBTASKS, Subtask, get_subtask

RESAMPLES = 1000


TEST_ROUNDS = 10_000  # rounds of the paired randomization test of a pooled source and a model


DEFAULT_SEED = 0


SYNTHETIC_BANNER = "synthetic gold — not a human baseline"


SYNTHETIC_FOOTNOTE = "the gold of this dataset is synthetic (made to test the software): no score is reported"


# The pooled human sources: report kind -> (export source, fill). The campaign table shows the
# one its organizer chose (Campaign.human_source).
POOLED_SOURCES = {"majority": ("majority", None), "adjudicated": ("adjudicated", None),
                  "majority_filled": ("majority", "adjudicated"), "dawid_skene": ("dawid-skene", None)}


CAMPAIGN_HUMAN_COLUMNS = ("human source", "mean annotator")


# Figures of `score --json` that are not secondary metrics.
SCORE_KEYS = {"score", "ci_low", "ci_high", "coverage"}


BEST_CHOSEN_AFTER = ("the best annotator is chosen after seeing the scores, so the score is biased upward; "
                     "it has no interval and is not in the campaign table")


MCNEMAR_NOTE = "McNemar's test counts items right or wrong: for wsd and coreference it tests accuracy, while p tests macro-F1"


@dataclass(frozen=True)
class Exported:
    """One source as the submission file its download holds."""

    source: str  # "annotator:NAME", "majority", "adjudicated", "model:NAME"
    kind: str  # annotator | majority | adjudicated | model
    name: str
    filename: str
    file: Export | bytes  # the export (whose bytes are made when first asked for), or a model's stored file
    only_answered: bool  # scored on the gold items it answers (an annotator), else on all gold
    items: list[str] | None = None  # a pooled source's complete items, which it is scored on (``--items``)
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
    """Every annotator with a submitted answer, by username, and the pooled sources (without
    the answers of ``excluded`` usernames, scored on the complete items), each as the file its
    download holds (``annotation.results.exporting.build_export``, every source from one read)."""
    sources: list[Exported | Unavailable] = []
    complete = reads.complete_items(excluded)
    exports = [(f"annotator:{username}", f"annotator:{username}", None) for username in reads.answers.annotators]
    subtask = get_subtask(reads.dataset.subtask)
    exports += [(kind, source, fill) for kind, (source, fill) in POOLED_SOURCES.items()
                if kind != "dawid_skene" or offered(subtask)]
    for name, source, fill in exports:
        kind = name.partition(":")[0]
        pooled = kind in POOLED_SOURCES
        try:
            export = build_export(reads.dataset, source, fill=fill, reads=reads, excluded=excluded if pooled else ())
        except Refused as refused:
            sources.append(Unavailable(name, kind, "; ".join(refused.messages)))
            continue
        sources.append(Exported(name, kind, name.partition(":")[2] or name, export.filename, export,
                                only_answered=kind == "annotator", records=export.records,
                                items=complete if pooled else None,
                                left_out=Counter(reason for _, reason in export.left_out)))
    return sources


def items_filename(dataset: Dataset) -> str:
    """The file of the complete items the pooled sources are scored on, one id a line (``--items``)."""
    return f"{dataset.name}.complete-items.txt"


def inputs_filename(dataset: Dataset) -> str:
    """The dataset's inputs the Dawid–Skene command reads: the input lines of its items that count
    (withdrawn items left out), in input order."""
    return f"{dataset.name}.inputs.jsonl"


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
    items: list[str] | None  # a pooled source's complete items that have gold: its ``--items`` file
    lines: list[dict]  # the gold lines it is scored on, in unit order (``units``; none after an error)
    counted: Counted  # those lines

    @property
    def pooled(self) -> bool:
        return self.items is not None


def read_source(subtask: Subtask, gold: list[dict], gold_ids: set[str], exported: Exported) -> ReadSource:
    """The source as `score` reads its file. An export's own lines are what reading its bytes
    gives (they were checked against the inputs, a stricter check than the scorer's), so they
    are taken as they are when every id has gold; a model's stored file is read."""
    if exported.records is not None and all(record["id"] in gold_ids for record in exported.records):
        pred, errors, n_faults = {record["id"]: record for record in exported.records}, [], 0
    else:
        pred, errors, faults = read_predictions(subtask, exported.data, exported.filename, gold_ids)
        n_faults = len(faults)
    items = None if exported.items is None else [item for item in exported.items if item in gold_ids]
    lines = [] if errors else units(scored_gold(gold, pred, exported.only_answered, items))
    return ReadSource(exported, pred, errors, n_faults, items, lines, Counted(subtask, lines, pred))


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


SCORED_ON = {"annotator": "answered items", "model": "all gold items"}  # else: the complete items


def score_source(subtask: Subtask, gold: list[dict], read: ReadSource, resamples: int, seed: int) -> dict:
    """One source's row of the report: what `score --json --ci` prints for its export (the
    scorer's ``score_records`` on the file as ``score_files`` reads it: an annotator with
    ``--only-answered``, a pooled source with ``--items`` of its complete items), and the
    per-subtask breakdown on the same scored gold lines."""
    exported, pred = read.exported, read.pred
    row = {"source": exported.source, "kind": exported.kind, "name": exported.name,
           "scored_on": SCORED_ON.get(exported.kind, "complete items"), "available": True}
    if read.errors:  # an export is checked before it is scored: only a stored model file could get here
        return row | {"available": False, "reason": "; ".join(str(error) for error in read.errors)}
    metrics = score_records(subtask, gold, pred, read.n_faults, exported.only_answered, resamples, seed,
                            read.counted, items=read.items)
    answered = [record for record in gold if record["id"] in pred]
    return row | {
        "score": metrics["score"],
        "intervals": {figure: [metrics.get(low), metrics.get(high)] for figure, low, high in interval_keys(subtask)},
        "n_scored": metrics["n_gold"],
        "n_missing": metrics["n_missing"],
        "n_answered": len(pred),
        "left_out": dict(exported.left_out),
        "coverage": metrics.get("coverage", len(answered) / len(gold)),
        "answer_faults": read.n_faults,
        "metrics": metrics,
        "secondary": {name: value for name, value in metrics.items()
                      if isinstance(value, float) and name not in SCORE_KEYS and "_ci_" not in name},
        "breakdown": breakdown(subtask.key, [record for record in gold if record["id"] in pred]
                               if exported.only_answered else read.lines, pred, read.counted.rows_by_id),
    }


def compare_source(subtask: Subtask, gold: list[dict], human: ReadSource, model: ReadSource,
                   resamples: int, seed: int, test_rounds: int) -> dict:
    """`compare --pred HUMAN --pred MODEL --ci` (the scorer's ``compare_records``) on exactly the
    human's items: diff = human - model, paired; an annotator's answered items (no test), a
    pooled source's complete items (``--items``, with ``--test-rounds``)."""
    only_answered = human.exported.only_answered
    rounds = test_rounds if human.pooled else 0
    metrics = compare_records(subtask, gold, human.pred, model.pred, only_answered, resamples, seed,
                              (human.counted, model.counted), items=human.items, test_rounds=rounds)
    intervals = [score_intervals(subtask, read.counted.resampled_scores(human.lines, resamples, seed)) if resamples
                 else {} for read in (human, model)]
    comparison = {
        "human": human.exported.source, "model": model.exported.source, "human_kind": human.exported.kind,
        "model_name": model.exported.name, "only_answered": only_answered,
        "score_human": metrics["score_a"], "score_model": metrics["score_b"], "diff": metrics["diff"],
        "human_ci": [intervals[0].get("ci_low"), intervals[0].get("ci_high")],
        "model_ci": [intervals[1].get("ci_low"), intervals[1].get("ci_high")],
        "diff_ci": [metrics.get("diff_ci_low"), metrics.get("diff_ci_high")], "n_scored": metrics["n_gold"],
        "coverage": metrics.get("coverage", 1.0),
    }
    if rounds:
        comparison |= {key: metrics[key] for key in ("test_rounds", "p_value", "mcnemar_p", "n_a_only", "n_b_only",
                                                     "mcnemar_figure")}
        comparison["reasons"] = metrics.get("reasons", {})
    return comparison


def mean_annotator(subtask: Subtask, gold: list[dict], annotators: list[ReadSource], models: list[ReadSource],
                   resamples: int, seed: int) -> dict | None:
    """What `annotators --json --ci` prints for the annotators' exports: the mean annotator with
    its two-way interval, the spread, and (``--model``) the mean paired difference to each model
    with its interval; None without an annotator."""
    if not annotators:
        return None
    files = [(read.exported.name, read.pred) for read in annotators]
    group = group_figures(subtask, gold, files, None, resamples, seed)
    group["models"] = {}
    for model in models:
        with_model = group_figures(subtask, gold, files, model.pred, resamples, seed)
        group["models"][model.exported.name] = {key: with_model.get(key)
                                                for key in ("diff", "diff_ci_low", "diff_ci_high")}
    return group


AUDITED_GOLD_NOTE = ("the benchmark's gold (the original) is the headline, since models are scored on it; beside it "
                     "each score on the audited gold: the gold audit's corrections in place of the original lines, "
                     "the items it withdrew left out")


def audited_scores(subtask: Subtask, dataset: Dataset, gold: list[dict], rows: list[dict], scored: list[ReadSource],
                   annotators: list[ReadSource], comparisons: list[dict], headline_mean: dict | None) -> dict:
    """The report's ``gold_audit``: the counts of items audited, corrected and withdrawn, and
    every scored source on the audited gold (each on the same kind of items as its headline
    score: an annotator's answered items, a pooled source's complete items, a model's every
    gold item), set beside its headline score in ``rows`` (``score_audited``,
    ``n_scored_audited``) and in ``comparisons`` (``score_human_audited``,
    ``score_model_audited``: the model on the human source's audited items); the mean
    annotator's too. Scored by the same ``score_records`` as the headline; while the audit has
    changed no gold line, the audited gold is the original and so are its figures."""
    audit = audited_gold(dataset, gold)
    lines = list(audit.lines.values())
    by_source = {row["source"]: row for row in rows}
    reads = {read.exported.source: read for read in scored}
    scored_ids: dict[str, list[str]] = {}
    for read in scored:
        row = by_source[read.exported.source]
        if not audit.changed:
            row["score_audited"], row["n_scored_audited"] = row["score"], row["n_scored"]
            continue
        items = None if read.items is None else [item for item in read.items if item in audit.lines]
        metrics = score_records(subtask, lines, read.pred, read.n_faults, read.exported.only_answered, items=items)
        row["score_audited"], row["n_scored_audited"] = metrics["score"], metrics["n_gold"]
        scored_ids[read.exported.source] = [record["id"] for record in scored_gold(
            lines, read.pred, read.exported.only_answered, items)]
    for comparison in comparisons:
        comparison["score_human_audited"] = by_source[comparison["human"]]["score_audited"]
        if not audit.changed:
            comparison["score_model_audited"] = comparison["score_model"]
            continue
        human_ids = scored_ids[comparison["human"]]
        comparison["score_model_audited"] = score_records(subtask, lines, reads[comparison["model"]].pred,
                                                          items=human_ids)["score"] if human_ids else None
    scores = {source: {"score": by_source[source]["score_audited"], "n_scored": by_source[source]["n_scored_audited"]}
              for source in reads}
    files = [(read.exported.name, read.pred) for read in annotators]
    if not audit.changed:
        mean = headline_mean["mean"] if headline_mean else None
    else:
        mean = group_figures(subtask, lines, files)["mean"] if files else None
    return {"n_audited": audit.audited, "n_corrected": audit.corrected, "n_withdrawn": audit.withdrawn,
            "n_gold": len(lines), "scores": scores, "mean_annotator": mean, "note": AUDITED_GOLD_NOTE}


def item_difficulty(subtask: Subtask, dataset: Dataset, gold: list[dict], annotators: list[ReadSource],
                    models: list[ReadSource]) -> dict:
    """Per gold item (input order): ``n_annotators`` who answered it, ``human`` the mean of
    their results (the subtask's item figure: the share who got it right; discourse: their mean
    LAS; None: nobody answered), and each model's result (not answered: 0, as the metric counts
    it); and the items every annotator got right and every model wrong (``humans_only``), and
    the reverse (``models_only``), by ``scoring.difficulty.alone_right``. Each result is the one
    the source's score is made of (its count row of the item)."""
    known: dict[tuple[int, ...], float] = {}

    def result(read: ReadSource, item_id: str) -> float:
        row = read.counted.rows_by_id[item_id]
        if row not in known:
            known[row] = float(subtask.combine(row, 1)[subtask.item_figure])
        return known[row]

    items, humans_only, models_only = [], [], []
    for record in gold:
        item_id = record["id"]
        people = [result(read, item_id) for read in annotators if item_id in read.pred]
        machines = {read.exported.name: result(read, item_id) for read in models}
        items.append({"id": item_id, "n_annotators": len(people), "human": fmean(people) if people else None,
                      "models": machines})
        alone = alone_right(people, list(machines.values()))
        if alone == HUMANS_ONLY:
            humans_only.append(item_id)
        elif alone == MODELS_ONLY:
            models_only.append(item_id)
    listed = humans_only + models_only
    pks = dict(Item.objects.filter(dataset=dataset, external_id__in=listed).values_list("external_id", "pk")) if listed else {}
    return {
        "figure": subtask.item_figure,
        "models": [read.exported.name for read in models],
        "items": items,
        "humans_only": {"count": len(humans_only), "ids": humans_only, "item_pks": [pks[i] for i in humans_only]},
        "models_only": {"count": len(models_only), "ids": models_only, "item_pks": [pks[i] for i in models_only]},
    }


def best_annotator(annotators: list[dict]) -> dict | None:
    """The annotator with the highest score, marked as chosen after the fact (no interval)."""
    best = max(annotators, key=lambda row: row["score"], default=None)
    return None if best is None else {"source": best["source"], "name": best["name"], "score": best["score"],
                                      "n_scored": best["n_scored"], "note": BEST_CHOSEN_AFTER}


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


def bounds_text(bounds: list) -> str:
    return "n/a" if bounds[0] is None else f"[{percent(bounds[0])}, {percent(bounds[1])}]"


def p_text(p_value: float | None) -> str:
    if p_value is None:
        return "no test"
    return f"p {p_figure(p_value)}" if p_value < 0.001 else f"p = {p_figure(p_value)}"


HUMAN_LABELS = {"majority": "the majority", "adjudicated": "the adjudicated answers",
                "majority_filled": "the majority filled with adjudications", "dawid_skene": "the Dawid–Skene answers"}


def quote(comparison: dict, n_annotators: int, holm_p: float | None = None, family: int = 0) -> dict:
    """The figures of a sentence a paper can quote about a pooled source beside a model (as text,
    in percent and points), and the sentence in English (the page says it in its reader's language)."""
    parts = {
        "n": comparison["n_scored"], "human": HUMAN_LABELS[comparison["human_kind"]], "n_annotators": n_annotators,
        "human_score": percent(comparison["score_human"]), "human_ci": bounds_text(comparison["human_ci"]),
        "model": comparison["model_name"], "model_score": percent(comparison["score_model"]),
        "model_ci": bounds_text(comparison["model_ci"]), "diff": percent(comparison["diff"]),
        "diff_ci": bounds_text(comparison["diff_ci"]), "p": p_text(comparison.get("p_value")),
        "rounds": f"{comparison.get('test_rounds', 0):,}", "holm_p": p_text(holm_p), "family": family,
    }
    sentence = (f"On {parts['n']} items, {parts['human']} of {n_annotators} annotators scored {parts['human_score']}% "
                f"{parts['human_ci']}; model {parts['model']} {parts['model_score']}% {parts['model_ci']} on the same items; "
                f"difference {parts['diff']} points {parts['diff_ci']}, {parts['p']} (paired randomization, "
                f"{parts['rounds']} rounds")
    sentence += f"; Holm-adjusted over {family} subtasks: {parts['holm_p']})" if holm_p is not None else ")"
    return parts | {"sentence": sentence}


def dawid_skene_figures(reads: DatasetReads, excluded: frozenset[str]) -> dict:
    """The report's ``dawid_skene``: what `python -m scoring dawid-skene --json` says of the
    annotators' exports (the classes, the rounds run, each annotator's estimated accuracy), with
    the answers of the pooled sources (without ``excluded``); for a subtask without it, why not."""
    subtask = get_subtask(reads.dataset.subtask)
    if not offered(subtask):
        return {"offered": False, "reason": not_offered_reason(subtask)}
    return reads.dawid_skene(excluded).figures()


def reproducing_commands(subtask: Subtask, gold_name: str, humans: list[ReadSource], models: list[ReadSource],
                         resamples: int, seed: int, test_rounds: int, excluded: frozenset[str] = frozenset()) -> list[str]:
    """The `python -m scoring` command lines that print the report's figures from its downloads
    (the gold, each source's export and the complete items file) and the dataset's inputs (its
    items that count, ``inputs_filename``): where the report has the Dawid–Skene source, first
    the fit that writes its file and prints each annotator's estimated accuracy (the annotators
    it pools: without ``excluded``); then the sources' scores, the comparisons and the mean
    annotator's (alone, then with each model), each in the report's order."""
    interval = f" --ci {resamples} --seed {seed}" if resamples else ""
    commands = []
    pooled = [read.exported.filename for read in humans if read.exported.kind == "annotator"
              and read.exported.name not in excluded]
    for read in humans:
        if read.exported.kind == "dawid_skene" and len(pooled) >= 2:
            commands.append(f"python -m scoring dawid-skene {subtask.key} --inputs {inputs_filename(read.exported.file.dataset)}"
                            f" --pred {' '.join(pooled)} -o {read.exported.filename} --json")

    def units_option(read: ReadSource) -> str:
        if read.pooled:
            return f" --items {items_filename(read.exported.file.dataset)}"
        return " --only-answered" if read.exported.only_answered else ""

    base = f"python -m scoring {{}} {subtask.key} --gold {gold_name}"
    commands += [base.format("score") + f" --pred {read.exported.filename}{units_option(read)} --json{interval}"
                 for read in [*humans, *models]]
    for model in models:  # in the order of the report's comparisons
        commands += [base.format("compare") + f" --pred {human.exported.filename} --pred {model.exported.filename}"
                     f"{units_option(human)} --json{interval}"
                     + (f" --test-rounds {test_rounds}" if human.pooled and test_rounds else "") for human in humans]
    annotators = " ".join(read.exported.filename for read in humans if read.exported.kind == "annotator")
    if annotators:
        commands += [base.format("annotators") + f" --pred {annotators} --json{interval}"]
        commands += [base.format("annotators") + f" --pred {annotators} --model {model.exported.filename} --json{interval}"
                     for model in models]
    return commands


@collector_paused()
@one_snapshot()
def dataset_report(dataset: Dataset, *, resamples: int = RESAMPLES, seed: int = DEFAULT_SEED,
                   exclude_below_control: bool = False, test_rounds: int = TEST_ROUNDS) -> dict:
    """Everything the report of ``dataset`` says, as plain JSON values. With
    ``exclude_below_control``, the annotators whose control-item accuracy is below the
    dataset's threshold do not count in the pooled sources (``excluded`` says who, and the
    export command's ``--exclude-below-control`` gives the same files). ``test_rounds``: of the
    paired randomization test of each pooled source and each model (fewer in tests)."""
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
    annotators = [read for read in humans if read.exported.kind == "annotator"]
    if resamples:
        resample_sources(humans, models, resamples, seed)
    rows = [score_source(subtask, gold, entry, resamples, seed) if isinstance(entry, ReadSource) else entry
            for entry in entries]
    comparisons = [compare_source(subtask, gold, human, model, resamples, seed, test_rounds)
                   for model in models for human in humans]
    for comparison in comparisons:
        if comparison["human_kind"] in POOLED_SOURCES:
            comparison["quote"] = quote(comparison, len(annotators))
    group = mean_annotator(subtask, gold, annotators, models, resamples, seed)
    gold_audit = audited_scores(subtask, dataset, gold, rows, scored, annotators, comparisons, group)
    difficulty = item_difficulty(subtask, dataset, gold, annotators, models)
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
        # The items annotators were given (`python manage.py sample`; size null: every item).
        # A routed dataset's pilot items (annotation.datasets.routing) are answered by every
        # annotator, beyond k: named here, as in every export.
        "sample": {"size": dataset.sample_size, "seed": dataset.sample_seed, "field": dataset.sample_field,
                   "ids": sample_ids(dataset), "routing": dataset.routing, "answers_per_item": dataset.answers_per_item,
                   "pilot_items": pilot_ids(dataset)},
        "n_gold": len(gold),
        "n_withdrawn": len(reads.withdrawn),
        "resamples": resamples,
        "seed": seed,
        "test_rounds": test_rounds,
        "confidence": 0.95,
        "sources": rows,
        # The complete items of the pooled sources (with gold), in input order: their --items file.
        "complete_items": next((read.items for read in humans if read.pooled), None),
        "comparisons": comparisons,
        # What `python -m scoring annotators --json --ci` prints (with --model for each model).
        "mean_annotator": group,
        "best_annotator": best_annotator([row for row in rows if row.get("available") and row["kind"] == "annotator"]),
        "notes": {"mcnemar": MCNEMAR_NOTE, "best annotator": BEST_CHOSEN_AFTER, "audited gold": AUDITED_GOLD_NOTE},
        # The scores on the audited gold beside the headline ones, and the audit's counts.
        "gold_audit": gold_audit,
        # Per item: the annotators' share right and each model's result; who alone got it right.
        "item_difficulty": difficulty,
        "commands": reproducing_commands(subtask, gold_name, humans, models, resamples, seed, test_rounds, excluded),
        "time": time_report(reads.answers.active_ms),
        # What `python -m scoring agreement --json` prints for the annotators' exports.
        "agreement": agreement_figures(dataset.subtask, reads.answers.table),
        # Dawid and Skene's model of the annotators (the pooled source's fit): each one's estimated accuracy.
        "dawid_skene": dawid_skene_figures(reads, excluded),
        # How the annotators were trained, qualified and controlled.
        "procedure": procedure,
        # Who does not count in the pooled sources (the option to leave out annotators below
        # the control threshold), or None when every annotator counts.
        "excluded": {"annotators": sorted(excluded), "reason": "below_control_threshold", "note": EXCLUSION_NOTE}
        if exclude_below_control else None,
    }


def _human_cell(report: dict, kind: str) -> dict | None:
    row = next((row for row in report["sources"] if row["kind"] == kind and row.get("available")), None)
    if row is None or not row["n_scored"]:  # no complete item: no human figure to set beside a model
        return None
    low, high = row["intervals"]["score"]
    return {"score": row["score"], "ci_low": low, "ci_high": high, "source": row["source"],
            "n_items": row["n_scored"], "n_missing": row["n_missing"], "coverage": row["coverage"],
            "score_audited": row.get("score_audited"), "n_items_audited": row.get("n_scored_audited")}


def _mean_cell(report: dict) -> dict | None:
    group = report["mean_annotator"]
    if group is None or group["mean"] is None:
        return None
    return {"score": group["mean"], "ci_low": group.get("ci_low"), "ci_high": group.get("ci_high"),
            "min": group["min"], "max": group["max"], "n_annotators": group["n_annotators"],
            "score_audited": report["gold_audit"]["mean_annotator"]}


def _model_cell(report: dict, human_kind: str, model: str) -> dict | None:
    """A model on the human source's items: its score and interval, the difference (human −
    model) with its interval and the tests; the mean annotator's paired difference to it."""
    comparison = next((comparison for comparison in report["comparisons"]
                       if comparison["human_kind"] == human_kind and comparison["model_name"] == model), None)
    if comparison is None:
        return None
    group = (report["mean_annotator"] or {}).get("models", {}).get(model, {})
    return {"score": comparison["score_model"], "ci_low": comparison["model_ci"][0], "ci_high": comparison["model_ci"][1],
            "n_items": comparison["n_scored"], "diff": comparison["diff"], "diff_ci_low": comparison["diff_ci"][0],
            "diff_ci_high": comparison["diff_ci"][1], "p_value": comparison.get("p_value"),
            "mcnemar_p": comparison.get("mcnemar_p"), "n_a_only": comparison.get("n_a_only"),
            "n_b_only": comparison.get("n_b_only"), "p_holm": None,
            "mean_annotator_diff": group.get("diff"), "mean_annotator_diff_ci_low": group.get("diff_ci_low"),
            "mean_annotator_diff_ci_high": group.get("diff_ci_high"), "score_audited": comparison.get("score_model_audited")}


def adjust_by_model(rows: list[dict], models: list[str]) -> None:
    """Holm's adjusted p over each model's family: its subtasks with a p-value (``p_holm``)."""
    for model in models:
        cells = [row["cells"][model] for row in rows if (row["cells"].get(model) or {}).get("p_value") is not None]
        for cell, adjusted in zip(cells, holm([cell["p_value"] for cell in cells])):
            cell["p_holm"] = adjusted
            cell["family"] = len(cells)


@one_snapshot()
def campaign_report(campaign: Campaign, *, resamples: int = RESAMPLES, seed: int = DEFAULT_SEED,
                    exclude_below_control: bool = False, test_rounds: int = TEST_ROUNDS) -> dict:
    """The campaign table: the six subtasks as rows; as columns the campaign's human source (the
    pooled source its organizer chose, on its complete items), the mean annotator, and every
    model on the human source's items with the difference, its tests and Holm's adjustment over
    the model's subtasks. A dataset with synthetic gold puts no number in it (its cells are None,
    with a footnote)."""
    datasets = {dataset.subtask: dataset for dataset in campaign.datasets.all()}
    reports = {key: dataset_report(dataset, resamples=resamples, seed=seed, exclude_below_control=exclude_below_control,
                                   test_rounds=test_rounds)
               for key, dataset in datasets.items()}
    models = sorted({f"model:{row['name']}" for report in reports.values() for row in report["sources"]
                     if row["kind"] == "model"})
    columns = [*CAMPAIGN_HUMAN_COLUMNS, *models]
    human_kind = campaign.human_source
    rows, footnotes = [], []
    for key in SUBTASKS:
        report = reports.get(key)
        row = {"subtask": key, "title": get_subtask(key).title, "dataset": report["dataset"] if report else None,
               "dataset_id": report["dataset_id"] if report else None,
               "gold_synthetic": bool(report and report["gold_synthetic"]), "footnote": None,
               # The gold audit's counts: the cells' score_audited are on the audited gold.
               "gold_audit": {key: report["gold_audit"][key] for key in ("n_audited", "n_corrected", "n_withdrawn")}
               if report else None}
        cells: dict[str, dict | None] = {}
        if report and report["gold_synthetic"]:
            footnotes.append({"subtask": key, "dataset": report["dataset"], "text": SYNTHETIC_FOOTNOTE})
            row["footnote"] = len(footnotes)
        elif report:
            cells = {"human source": _human_cell(report, human_kind), "mean annotator": _mean_cell(report),
                     **{model: _model_cell(report, human_kind, model.partition(":")[2]) for model in models}}
        row["cells"] = {column: cells.get(column) for column in columns}
        rows.append(row)
    adjust_by_model(rows, models)
    n_annotators = {report["subtask"]: len([row for row in report["sources"] if row["kind"] == "annotator"
                                            and row.get("available")]) for report in reports.values()}
    for row in rows:
        for model in models:
            comparison = next((comparison for comparison in (reports[row["subtask"]]["comparisons"]
                                                             if row["subtask"] in reports else [])
                               if comparison["human_kind"] == human_kind and comparison["model"] == model), None)
            cell = row["cells"][model]
            if cell is not None and comparison is not None and not row["gold_synthetic"]:
                cell["quote"] = quote(comparison, n_annotators[row["subtask"]], cell["p_holm"], cell.get("family", 0))
    return {
        "campaign": campaign.name,
        "campaign_id": campaign.pk,
        "computed_at": timezone.now().isoformat(),
        "resamples": resamples,
        "seed": seed,
        "test_rounds": test_rounds,
        "confidence": 0.95,
        "human_source": human_kind,
        "gold_synthetic": any(report["gold_synthetic"] for report in reports.values()),
        "columns": columns,
        "rows": rows,
        "footnotes": footnotes,
        "notes": {"human source": f"{HUMAN_LABELS[human_kind]}, scored on the complete items (every answer in, at "
                                  "least two; an item without its answer counts as missing); each model on the same items",
                  "mean annotator": "the mean of the annotators' scores, each on the items they answered, with a two-way "
                                    "(annotators and items) bootstrap interval",
                  "models": "the model's score on the human source's items; difference = human − model; p: paired "
                            f"randomization ({test_rounds} rounds), Holm-adjusted over the model's subtasks",
                  "audited gold": AUDITED_GOLD_NOTE,
                  **({"excluded": EXCLUSION_NOTE} if exclude_below_control else {})},
        "exclude_below_control": exclude_below_control,
        "datasets": list(reports.values()),
    }
