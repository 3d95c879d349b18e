"""Scoring a submission file against a gold file."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.jsonl import read_jsonl
from scoring.problems import Problem
from scoring.subtasks import get_subtask
from scoring.validation import (
    read_answer_file,
    schema_problems,
    sorted_by_line,
    validator,
    without_id,
)


@dataclass
class Scored:
    """The metrics (None when a file-level error stopped scoring), the file-level
    errors, and the answer-level faults (counted as the metric says, and listed)."""

    metrics: dict | None
    errors: list[Problem] = field(default_factory=list)
    answer_faults: list[Problem] = field(default_factory=list)


def score_files(key: str, gold_data: bytes, gold_name: str, pred_data: bytes, pred_name: str,
                only_answered: bool = False) -> Scored:
    """Score ``pred`` against ``gold``.

    File-level errors (broken JSON, a line without a string id, a duplicate id, an id
    not in gold, any fault of the gold file) stop scoring. Answer-level faults (schema
    or consistency faults of one answer, e.g. a label outside A-D or an invalid tree)
    do not: the metric scores such an answer as it is, which mostly means wrong.
    With ``only_answered``, only the gold items the prediction answers are scored and
    ``coverage`` (answered / all gold items) is reported.
    """
    subtask = get_subtask(key)
    gold_lines, _, errors = read_answer_file(subtask, "gold", gold_data, gold_name, None)
    gold = [line.record for line in gold_lines]
    gold_ids = {record.get("id") for record in gold}

    pred_lines, pred_errors = read_jsonl(pred_data, pred_name)
    errors += pred_errors
    compiled = validator(key, "output")
    pred: dict[str, dict] = {}
    first_line: dict[str, int] = {}
    faults: list[Problem] = []
    for line in pred_lines:
        item_id = line.record.get("id")
        if not isinstance(item_id, str):
            errors.append(Problem("id", "missing or not a string", "no_id", pred_name, line.number))
        elif item_id in first_line:
            errors.append(Problem("id", f"duplicate id {item_id!r} (first on line {first_line[item_id]})", "duplicate_id", pred_name, line.number))
        elif item_id not in gold_ids:
            errors.append(Problem("id", f"{item_id!r} is not an id of the gold file", "unknown_id", pred_name, line.number))
        else:
            first_line[item_id] = line.number
            pred[item_id] = line.record
            found = schema_problems(compiled, line.record) or subtask.check_answer(without_id(line.record), None)
            faults.extend(problem.at(pred_name, line.number) for problem in found)
    if errors:
        return Scored(None, sorted_by_line(errors), sorted_by_line(faults))

    n_gold_total = len(gold)
    if only_answered:
        gold = [record for record in gold if record["id"] in pred]
    metrics = {"subtask": key, **subtask.metric(gold, pred), "n_answer_faults": len(faults)}
    if only_answered:
        metrics["n_gold_total"] = n_gold_total
        metrics["coverage"] = len(gold) / n_gold_total if n_gold_total else 0.0
    return Scored(metrics, [], sorted_by_line(faults))
