"""Scoring a submission file against a gold file."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.intervals import difference_interval, resampled_scores_together, score_intervals, units
from scoring.jsonl import read_jsonl, text_lines
from scoring.metrics import combined, count_rows_by_id
from scoring.problems import Problem, problem
from scoring.significance import paired_tests
from scoring.subtasks import Subtask, get_subtask
from scoring.validation import (
    read_answer_file,
    repeated_id,
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


def read_predictions(subtask: Subtask, pred_data: bytes, pred_name: str, gold_ids: set) -> tuple[dict[str, dict], list[Problem], list[Problem]]:
    """The predictions by id, the file-level errors and the answer-level faults of a prediction file."""
    pred_lines, errors = read_jsonl(pred_data, pred_name)
    compiled = validator(subtask.key, "output")
    pred: dict[str, dict] = {}
    first_line: dict[str, int] = {}
    faults: list[Problem] = []
    for line in pred_lines:
        item_id = line.record.get("id")
        if not isinstance(item_id, str):
            errors.append(problem("no_id", "id", pred_name, line.number))
        elif (repeated := repeated_id(item_id, first_line, pred_name, line.number)) is not None:
            errors.append(repeated)
        elif item_id not in gold_ids:
            errors.append(problem("unknown_id/gold", "id", pred_name, line.number, id=item_id))
        else:
            first_line[item_id] = line.number
            pred[item_id] = line.record
            found = schema_problems(compiled, line.record) or subtask.check_answer(without_id(line.record), None)
            faults.extend(problem.at(pred_name, line.number) for problem in found)
    return pred, errors, faults


def read_items(data: bytes, name: str, gold_ids: set) -> tuple[list[str], list[Problem]]:
    """The gold ids of an items file (``--items``: one id a line, stripped, blank lines ignored,
    read as the JSONL files are) and its problems: an id not in the gold, an id listed twice."""
    problems: list[Problem] = []
    items: list[str] = []
    first_line: dict[str, int] = {}
    for number, text in text_lines(data, name, problems):
        item_id = text.strip()
        if not item_id:
            continue
        if (repeated := repeated_id(item_id, first_line, name, number)) is not None:
            problems.append(repeated)
        elif item_id not in gold_ids:
            problems.append(problem("unknown_id/gold", "id", name, number, id=item_id))
        else:
            first_line[item_id] = number
            items.append(item_id)
    return items, sorted_by_line(problems)


def scored_gold(gold: list[dict], pred: dict[str, dict], only_answered: bool = False,
                items: list[str] | None = None) -> list[dict]:
    """The gold lines scored: all, those ``pred`` answers (``only_answered``), or those listed
    in ``items`` (ids of the gold, each once: ``read_items``)."""
    if items is not None:
        listed = set(items)
        return [record for record in gold if record["id"] in listed]
    if only_answered:
        return [record for record in gold if record["id"] in pred]
    return gold


def coverage_figures(lines: list[dict], gold: list[dict]) -> dict:
    """``n_gold_total`` and ``coverage`` (the share of the gold lines scored)."""
    return {"n_gold_total": len(gold), "coverage": len(lines) / len(gold) if gold else 0.0}


def read_gold(subtask: Subtask, gold_data: bytes, gold_name: str) -> tuple[list[dict], list[Problem]]:
    gold_lines, _, errors = read_answer_file(subtask, "gold", gold_data, gold_name, None)
    return [line.record for line in gold_lines], errors


def score_files(key: str, gold_data: bytes, gold_name: str, pred_data: bytes, pred_name: str,
                only_answered: bool = False, resamples: int = 0, seed: int = 0, *,
                items_file: tuple[bytes, str] | None = None) -> Scored:
    """Score ``pred`` against ``gold``.

    File-level errors (broken JSON, a line without a string id, a duplicate id, an id
    not in gold, any fault of the gold file, any fault of the items file) stop scoring.
    Answer-level faults (schema or consistency faults of one answer, e.g. a label outside A-D
    or an invalid tree) do not: the metric scores such an answer as it is, which mostly means
    wrong. With ``only_answered``, only the gold items the prediction answers are scored; with
    ``items_file`` (``(bytes, name)``, ``read_items``), exactly the items it lists; either way
    ``coverage`` (scored / all gold items) is reported. With ``resamples`` > 0, the bootstrap
    intervals of scoring.intervals (drawn with ``seed``) are added.
    """
    subtask = get_subtask(key)
    gold, errors = read_gold(subtask, gold_data, gold_name)
    gold_ids = {record.get("id") for record in gold}
    pred, pred_errors, faults = read_predictions(subtask, pred_data, pred_name, gold_ids)
    errors += pred_errors
    items, item_errors = read_items(*items_file, gold_ids) if items_file else (None, [])
    if errors or item_errors:
        return Scored(None, sorted_by_line(errors) + item_errors, sorted_by_line(faults))

    return Scored(score_records(subtask, gold, pred, len(faults), only_answered, resamples, seed, items=items), [],
                  sorted_by_line(faults))


class Counted:
    """A prediction's count rows by gold id (``count_rows_by_id``), counted once, and its figures
    and their resampled figures over each set of gold lines asked for, computed once: a report
    scores a source with its interval and compares it with others on the same lines."""

    def __init__(self, subtask: Subtask, gold: list[dict], pred: dict[str, dict]):
        self.subtask = subtask
        self.rows_by_id = count_rows_by_id(subtask, gold, pred)  # the lines of ``gold`` only
        self.figures_of: dict[tuple[str, ...], dict] = {}  # line ids -> figures
        self.resampled: dict[tuple, list[dict]] = {}  # (line ids, resamples, seed) -> figures of each resample

    def rows(self, lines: list[dict]) -> list[tuple[int, ...]]:
        """The count rows of ``lines`` (gold records), in their order."""
        return [self.rows_by_id[record["id"]] for record in lines]

    def figures(self, lines: list[dict]) -> dict:
        """The metric's figures on ``lines`` (``combined``; do not change them)."""
        key = tuple(record["id"] for record in lines)
        if key not in self.figures_of:
            self.figures_of[key] = combined(self.subtask, self.rows(lines))
        return self.figures_of[key]

    def resampled_scores(self, lines: list[dict], n_resamples: int, seed: int) -> list[dict]:
        """The figures over each resample of ``lines`` (gold records in unit order), as
        ``scoring.intervals.resampled_scores_together`` gives them."""
        resample_together([self], lines, n_resamples, seed)
        return self.resampled[(tuple(record["id"] for record in lines), n_resamples, seed)]


def resample_together(predictions: list[Counted], lines: list[dict], n_resamples: int, seed: int) -> None:
    """Computes the resampled figures of ``predictions`` (of one subtask) over ``lines`` (gold
    records in unit order) that are not kept yet, all from one product
    (``resampled_scores_together``), and keeps them."""
    key = (tuple(record["id"] for record in lines), n_resamples, seed)
    missing = [counted for counted in predictions if key not in counted.resampled]
    if missing:
        row_sets = [counted.rows(lines) for counted in missing]
        for counted, figures in zip(missing, resampled_scores_together(missing[0].subtask, row_sets, n_resamples, seed)):
            counted.resampled[key] = figures


def score_records(subtask: Subtask, gold: list[dict], pred: dict[str, dict], n_answer_faults: int = 0,
                  only_answered: bool = False, resamples: int = 0, seed: int = 0,
                  counted: Counted | None = None, *, items: list[str] | None = None) -> dict:
    """What ``score_files`` prints for gold and predictions already read (``read_gold``,
    ``read_predictions``, ``read_items``): one file read once can be scored and compared many
    times. ``counted``: ``pred`` counted already (on at least the lines scored)."""
    lines = units(scored_gold(gold, pred, only_answered, items))
    counted = counted or Counted(subtask, lines, pred)  # counted once, for the figures and their intervals
    metrics = {"subtask": subtask.key, **counted.figures(lines), "n_answer_faults": n_answer_faults}
    if only_answered or items is not None:
        metrics.update(coverage_figures(lines, gold))
    if resamples:
        metrics.update(score_intervals(subtask, counted.resampled_scores(lines, resamples, seed)))
    return metrics


def compare_files(key: str, gold_data: bytes, gold_name: str, pred_a: tuple[bytes, str], pred_b: tuple[bytes, str],
                  only_answered: bool = False, resamples: int = 0, seed: int = 0, *,
                  items_file: tuple[bytes, str] | None = None, test_rounds: int = 0) -> Scored:
    """Compare submissions A and B (each ``(bytes, name)``) on the same gold: ``score_a``,
    ``score_b``, ``diff`` = A - B and, with ``resamples`` > 0, ``diff_ci_low``/``diff_ci_high``
    over one index matrix applied to both; with ``test_rounds`` > 0, the paired tests of
    scoring.significance. With ``only_answered``, both are scored on the gold lines A answers;
    with ``items_file``, on the lines it lists. Errors and faults as ``score_files``, of both files."""
    subtask = get_subtask(key)
    gold, gold_errors = read_gold(subtask, gold_data, gold_name)
    gold_ids = {record.get("id") for record in gold}
    errors, faults, predictions = sorted_by_line(gold_errors), [], []
    for data, name in (pred_a, pred_b):  # each file's problems in line order, A's first
        pred, pred_errors, pred_faults = read_predictions(subtask, data, name, gold_ids)
        predictions.append(pred)
        errors += sorted_by_line(pred_errors)
        faults += sorted_by_line(pred_faults)
    items, item_errors = read_items(*items_file, gold_ids) if items_file else (None, [])
    if errors or item_errors:
        return Scored(None, errors + item_errors, faults)

    return Scored(compare_records(subtask, gold, *predictions, only_answered, resamples, seed, items=items,
                                  test_rounds=test_rounds), [], faults)


def compare_records(subtask: Subtask, gold: list[dict], pred_a: dict[str, dict], pred_b: dict[str, dict],
                    only_answered: bool = False, resamples: int = 0, seed: int = 0,
                    counted: tuple[Counted, Counted] | None = None, *, items: list[str] | None = None,
                    test_rounds: int = 0) -> dict:
    """What ``compare_files`` prints for gold and predictions already read; ``counted``: A and
    B counted already (on at least the lines compared)."""
    lines = units(scored_gold(gold, pred_a, only_answered, items))
    counted_a, counted_b = counted or (Counted(subtask, lines, pred_a), Counted(subtask, lines, pred_b))
    score_a, score_b = counted_a.figures(lines)["score"], counted_b.figures(lines)["score"]
    metrics = {"subtask": subtask.key, "score_a": score_a, "score_b": score_b, "diff": score_a - score_b,
               "n_gold": len(lines)}
    if only_answered or items is not None:
        metrics.update(coverage_figures(lines, gold))
    reasons: dict[str, str] = {}
    if resamples:
        bounds = difference_interval(counted_a.resampled_scores(lines, resamples, seed),
                                     counted_b.resampled_scores(lines, resamples, seed))
        reasons.update(bounds.pop("reasons", {}))
        metrics.update(bounds)
    if test_rounds:
        tests = paired_tests(subtask, counted_a.rows(lines), counted_b.rows(lines), test_rounds, seed)
        reasons.update(tests.pop("reasons", {}))
        metrics.update(tests)
    if reasons:
        metrics["reasons"] = reasons
    return metrics
