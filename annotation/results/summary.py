"""summary.json of a campaign's paper kit and release bundle: every number the paper's text and
tables contain, under stable keys, taken from the campaign table and its datasets' reports
(already under pseudonyms) and the campaign's protocol.

The bundle's reproduce.py (annotation/results/data/) builds the same dictionary again from the
bundle's files alone, with the bundled scorer for the scores and numpy for the rest, and
compares it key by key: a key added here is a key it must compute too.

Per subtask (``subtasks``): the dataset, its size, gold and sample; ``sources``: what
`python -m scoring score --json --ci` prints for each scored source; ``comparisons``: the
campaign's human source beside each model on its complete items (`compare --test-rounds`, with
Holm's adjustment over the model's subtasks); ``mean_annotator`` (`annotators --json --ci`,
with each model's paired difference); ``agreement`` (`agreement --json`, without its reasons);
``time`` (active seconds per answer, numpy's linear percentiles, person-hours);
``completion``; ``qualification``. A dataset with synthetic gold has no score. ``pay``: the
protocol's pay and the pay per hour (pay ÷ the median hours from a person's first answer
started to their last submitted, over the campaign). ``studies``: each panel study's figures
(participants entered, completed, screened out, completion rate, median seconds from entry to
completion, effective hourly pay: annotation.studies.selectors.study_figures) and pay, as the
study's records give them (reproduce.py states them from studies.json, it cannot recompute them).
"""

from __future__ import annotations

import numpy as np

COMPARISON_KEYS = ("n_items", "diff", "diff_ci_low", "diff_ci_high", "p_value", "mcnemar_p", "n_a_only", "n_b_only",
                   "p_holm")


def _comparisons(report: dict, row: dict | None, human_kind: str) -> dict:
    """Model name -> the campaign cell of the model beside the human source, with both scores."""
    found = {}
    for comparison in report["comparisons"]:
        if comparison["human_kind"] != human_kind:
            continue
        cell = (row or {}).get("cells", {}).get(comparison["model"]) or {}
        found[comparison["model_name"]] = {
            "score_human": comparison["score_human"], "score_model": comparison["score_model"],
            **{key: cell.get(key) for key in COMPARISON_KEYS}, "family": cell.get("family"),
        }
    return found


def _mean_annotator(report: dict) -> dict | None:
    group = report["mean_annotator"]
    if group is None or group.get("mean") is None:
        return None
    return {key: group.get(key) for key in ("mean", "ci_low", "ci_high", "min", "max", "n_annotators")} | {
        "models": {name: dict(figures) for name, figures in sorted(group["models"].items())}}


def _qualification(procedure: dict) -> dict:
    annotators = procedure["annotators"]
    return {
        "training_items": procedure["training_items"], "threshold": procedure["threshold"],
        "n_trained": sum(1 for row in annotators if row["tries"]),
        "n_qualified": sum(1 for row in annotators if row["qualified_on_try"] is not None or row["released"]),
        "n_released": sum(1 for row in annotators if row["released"]),
        "control_rate": procedure["control_rate"], "control_items": procedure["control_items"],
        "n_control_answers": sum(row["control_answers"] for row in annotators),
        "n_below_control_threshold": len(procedure["below_control_threshold"]),
    }


def subtask_summary(report: dict, row: dict | None, human_kind: str) -> dict:
    """One dataset's numbers (its report under pseudonyms; ``row`` its campaign table row)."""
    scored = not report["gold_synthetic"]
    sources = {source["source"]: source["metrics"] for source in report["sources"]
               if scored and source.get("available")}
    complete = report["complete_items"] or []
    served = len(report["sample"]["ids"])
    overall = report["time"]["overall"]
    human = sources.get(human_kind)
    return {
        "dataset": report["dataset"], "subtask": report["subtask"], "gold_synthetic": report["gold_synthetic"],
        "n_items": report["n_items"], "n_gold": report["n_gold"], "n_withdrawn": report["n_withdrawn"],
        "sample": {"size": report["sample"]["size"], "seed": report["sample"]["seed"],
                   "field": report["sample"]["field"], "n_served": served},
        "n_annotators": len({row["annotator"] for row in report["time"]["per_annotator"]}),
        "sources": sources,
        "comparisons": _comparisons(report, row, human_kind) if scored else {},
        "mean_annotator": _mean_annotator(report) if scored else None,
        "agreement": {name: value for name, value in report["agreement"].items() if name != "reasons"},
        "time": {"n_answers": overall["n_items"], "median_s": overall["median_s"], "q1_s": overall["q1_s"],
                 "q3_s": overall["q3_s"], "person_hours": report["time"]["total_hours"]},
        "completion": {"n_complete_items": len(complete), "n_served": served,
                       "completion_rate": len(complete) / served if served else None,
                       "complete_without_answer": human["n_missing"] if human else None},
        "qualification": _qualification(report["procedure"]),
    }


def pay_summary(protocol: dict, spans_hours: list[float]) -> dict:
    """The protocol's pay and the pay per hour: per hour as entered, or per participant ÷ the
    median of ``spans_hours`` (each person's first start to last submission, in hours)."""
    median = float(np.median(spans_hours)) if spans_hours else None
    amount, basis = protocol.get("pay_amount"), protocol.get("pay_basis") or None
    if amount is None:
        per_hour = None
    elif basis == "hour":
        per_hour = amount
    else:
        per_hour = amount / median if median else None
    return {"amount": amount, "currency": protocol.get("pay_currency") or None, "basis": basis,
            "median_hours_start_to_finish": median, "n_people": len(spans_hours), "per_hour": per_hour}


def campaign_summary(table: dict, protocol: dict, spans_hours: list[float], studies: list[dict] = ()) -> dict:
    """summary.json of the campaign table ``table`` (under pseudonyms); ``studies``: the panel
    studies' figures (annotation.results.release.study_facts)."""
    rows = {row["subtask"]: row for row in table["rows"]}
    return {
        "campaign": table["campaign"], "seed": table["seed"], "resamples": table["resamples"],
        "test_rounds": table["test_rounds"], "confidence": table["confidence"], "human_source": table["human_source"],
        "subtasks": {report["subtask"]: subtask_summary(report, rows.get(report["subtask"]), table["human_source"])
                     for report in table["datasets"]},
        "pay": pay_summary(protocol, spans_hours),
        "studies": list(studies),
    }


def spans_hours(times: list[tuple[str, object, object]]) -> list[float]:
    """Each person's hours from their first answer started to their last submitted, over
    ``times``: (person, started, submitted) of every answer (datetimes)."""
    spans: dict[str, list] = {}
    for person, started, submitted in times:
        first, last = spans.setdefault(person, [started, submitted])
        spans[person] = [min(first, started), max(last, submitted)]
    return [(last - first).total_seconds() / 3600 for first, last in spans.values()]
