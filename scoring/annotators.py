"""Annotators as a group: the mean annotator, its spread, and its two-way bootstrap interval
(``python -m scoring annotators``, see scoring/README.md).

Each file (one annotator) is scored as ``score --only-answered`` scores it. With a model, the
paired difference of an annotator is their score minus the model's on the units they answered,
and the group's is the mean of those.

The two-way bootstrap resamples annotators and items together: m = all files given, in order
(also those answering nothing); units = the union of their answered gold ids sorted by id (n);
``rng = numpy.random.default_rng(seed)``; ``A = rng.integers(0, m, size=(N, m))``, then
``U = rng.integers(0, n, size=(N, n))``. In resample r every drawn file (repeats count) is
scored on the drawn units it answered (a unit drawn twice counts twice); a file with none of
them is left out; the value is the mean of the rest (and of each kept file's score minus the
model's on the same drawn units); a resample with no file left is dropped. The bounds are
``numpy.percentile(values, [2.5, 97.5])``.

A file's score over a resample comes from its count rows as every interval's does
(scoring.intervals): the multiplicity of each unit times the file's rows, summed, combined
with the number of drawn units it answered.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from scoring.intervals import percentile_bounds, resampled_totals, units
from scoring.metrics import as_table, combined, count_rows

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

NO_ANNOTATOR = "no file answers a gold line, so there is no annotator to average"
NO_RESAMPLE = "no resample kept an annotator (or there is no answered unit), so there is no interval"
BLOCK_CELLS = 2**22  # unit multiplicities drawn per block (resamples x units)


def group_figures(subtask: Subtask, gold: list[dict], files: list[tuple[str, dict[str, dict]]],
                  model: dict[str, dict] | None = None, resamples: int = 0, seed: int = 0) -> dict:
    """What ``annotators --json`` prints for ``files`` ((name, predictions by id) of each
    annotator, in command-line order) against ``gold`` (read with ``read_gold``), and ``model``'s
    predictions when given."""
    lines = units([record for record in gold if any(record["id"] in pred for _, pred in files)])
    answered = [[record["id"] in pred for record in lines] for _, pred in files]
    rows = [count_rows(subtask, lines, pred) for _, pred in files]
    model_rows = count_rows(subtask, lines, model) if model is not None else None
    per_file: dict[str, float | None] = {}
    scores, differences = [], []
    for (name, _), file_rows, mask in zip(files, rows, answered):
        own = [row for row, is_answered in zip(file_rows, mask) if is_answered]
        if not own:
            per_file[name] = None
            continue
        per_file[name] = combined(subtask, own)["score"]
        scores.append(per_file[name])
        if model_rows is not None:
            model_own = [row for row, is_answered in zip(model_rows, mask) if is_answered]
            differences.append(per_file[name] - combined(subtask, model_own)["score"])
    figures: dict = {"subtask": subtask.key, "n_annotators": len(scores), "n_units": len(lines)}
    reasons: dict[str, str] = {}
    spread = ("mean", "median", "min", "max")
    if scores:
        figures.update(mean=statistics.fmean(scores), median=statistics.median(scores), min=min(scores), max=max(scores))
    else:
        figures.update(dict.fromkeys(spread))
        reasons.update(dict.fromkeys(spread, NO_ANNOTATOR))
    if model is not None:
        figures["diff"] = statistics.fmean(differences) if differences else None
        if not differences:
            reasons["diff"] = NO_ANNOTATOR
    figures["per_file"] = per_file
    if resamples:
        figures.update(two_way_bootstrap(subtask, rows, answered, model_rows, resamples, seed, reasons))
    if reasons:
        figures["reasons"] = reasons
    return figures


def two_way_bootstrap(subtask: Subtask, rows: list[list[tuple[int, ...]]], answered: list[list[bool]],
                      model_rows: list[tuple[int, ...]] | None, resamples: int, seed: int,
                      reasons: dict[str, str]) -> dict:
    """``n_resamples_used``, ``ci_low``, ``ci_high`` (and ``diff_ci_low``, ``diff_ci_high`` with
    a model) of the two-way bootstrap over the files' count ``rows`` on the units (in unit
    order; ``answered``: which units each file answered); null bounds get a reason in ``reasons``."""
    import numpy as np

    n_files, n_units, width = len(rows), len(answered[0]) if answered else 0, len(subtask.count_names)
    values, diff_values = [], []
    if n_units:
        generator = np.random.default_rng(seed)
        drawn_files = generator.integers(0, n_files, size=(resamples, n_files))
        masks = np.array(answered, dtype=np.int64).T  # units x files
        tables = [as_table(file_rows, width) * masks[:, [index]] for index, file_rows in enumerate(rows)]
        if model_rows is not None:
            model_table = as_table(model_rows, width)
            tables += [model_table * masks[:, [index]] for index in range(n_files)]
        table = np.hstack([*tables, masks])  # each file's totals, the model's on its units, its line counts
        block = max(1, BLOCK_CELLS // n_units)
        for start in range(0, resamples, block):
            drawn_units = generator.integers(0, n_units, size=(min(block, resamples - start), n_units))
            counts = np.empty(drawn_units.shape, dtype=np.float32)
            for row, picked in enumerate(drawn_units):
                counts[row] = np.bincount(picked, minlength=n_units)
            for offset, totals in enumerate(resampled_totals(table, counts)):
                value = resample_value(subtask, totals, drawn_files[start + offset], width, model_rows is not None)
                if value is not None:
                    values.append(value[0])
                    diff_values.append(value[1])
    bound_keys = ["ci_low", "ci_high"] + (["diff_ci_low", "diff_ci_high"] if model_rows is not None else [])
    bounds: dict = {"n_resamples_used": len(values)}
    if not values:
        reasons.update(dict.fromkeys(bound_keys, NO_RESAMPLE))
        return bounds | dict.fromkeys(bound_keys)
    bounds["ci_low"], bounds["ci_high"] = percentile_bounds(values)
    if model_rows is not None:
        bounds["diff_ci_low"], bounds["diff_ci_high"] = percentile_bounds(diff_values)
    return bounds


def resample_value(subtask: Subtask, totals: tuple[int, ...], drawn: list[int], width: int,
                   with_model: bool) -> tuple[float, float | None] | None:
    """The mean score of the ``drawn`` files kept in one resample (``totals``: the columns of
    ``two_way_bootstrap``'s table summed over its drawn units) and the mean of their differences
    to the model, or None when no drawn file answered a drawn unit."""
    n_files = len(totals) // (width * (2 if with_model else 1) + 1)
    line_counts = totals[len(totals) - n_files:]
    scores: dict[int, tuple[float, float | None]] = {}
    kept_scores, kept_differences = [], []
    for index in drawn.tolist():
        n_lines = line_counts[index]
        if not n_lines:
            continue
        if index not in scores:
            score = subtask.combine(totals[index * width:(index + 1) * width], n_lines)["score"]
            model_start = (n_files + index) * width
            model_score = subtask.combine(totals[model_start:model_start + width], n_lines)["score"] \
                if with_model else None
            scores[index] = (score, None if model_score is None else score - model_score)
        kept_scores.append(scores[index][0])
        kept_differences.append(scores[index][1])
    if not kept_scores:
        return None
    return statistics.fmean(kept_scores), statistics.fmean(kept_differences) if with_model else None
