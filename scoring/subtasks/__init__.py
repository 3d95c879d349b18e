"""The registry of the PoLiS subtasks: one module per subtask, one entry per module.

``scoring/subtasks/<key>.py`` holds everything the benchmark says about subtask ``key``
(constants, input and answer checks, normaliser, metric, title); its JSON Schemas are
``scoring/schemas/<key>.{input,output,gold}.schema.json``. Everything in the project that
needs a subtask's schemas, checks, normaliser or metric takes it from ``SUBTASKS``.

A subtask module exposes:

- ``NUMBER`` (its number in the benchmark), ``TITLE`` (English), ``ANSWER_FIELDS`` (in
  submission-line order, after "id");
- ``check_input(record) -> [Problem]``: an input record's faults beyond its schema;
- ``check_answer(answer, item or None) -> [Problem]``: an answer's (or gold line's) faults
  beyond its schema, against its item when one is at hand;
- ``normalise(answer) -> answer``: canonical answer fields, anything malformed passed through;
- ``COUNT_NAMES``, ``line_counts(gold_record, prediction or None) -> (int, ...)`` and
  ``combine(totals, n_lines) -> figures``: the metric, see scoring.metrics;
- ``ITEM_FIGURE``: the figure of ``combine`` that, over one gold line, says how right one
  answer is (1.0 exactly right, 0.0 not; discourse: the passage's LAS), used for training
  and control items;
- ``agreement_figures(table, figures)``: adds the subtask's agreement figures (built from
  scoring.reliability) over the valid answers of several files;
- ``majority(answers, item) -> (answer or None, reason or None)``: the majority answer of two
  or more valid normalised answers, or why there is none ("no majority", "invalid tree");
- ``answer_value(answer) -> hashable``: a valid normalised answer as one comparable value.
- optionally ``INTERVAL_FIGURES``: figures besides ``score`` that ``score --ci`` gives an
  interval for (scoring.intervals);
- optionally ``GRADED_ITEMS = True`` when one answer can be partly right (``ITEM_FIGURE``
  between 0 and 1), so that no test of right and wrong items applies (scoring.significance).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from scoring import metrics
from scoring.problems import Problem
from scoring.reliability import AnswerTable, Figures

SUBTASK_KEYS = ("morphosyntax", "numerals", "wsd", "coreference", "discourse", "commas")

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
SCHEMA_KINDS = ("input", "output", "gold")


@dataclass(frozen=True)
class Subtask:
    key: str
    number: int
    title: str
    answer_fields: tuple[str, ...]  # in submission-line order, after "id"
    input_schema: dict
    submission_schema: dict
    gold_schema: dict
    normalise: Callable[[dict], dict]
    check_input: Callable[[dict], list[Problem]]  # input record -> problems beyond the schema
    check_answer: Callable[[dict, dict | None], list[Problem]]  # (answer or gold fields, item or None) -> problems
    count_names: tuple[str, ...]  # the columns of line_counts
    line_counts: Callable[[dict, dict | None], tuple[int, ...]]  # (gold record, prediction or None) -> counts
    combine: Callable[[tuple[int, ...], int], dict]  # (column sums, number of gold lines) -> figures
    agreement_figures: Callable[[AnswerTable, Figures], None]  # adds the agreement figures
    majority: Callable[[list[dict], dict], tuple[dict | None, str | None]]  # (valid answers, item) -> answer, reason
    answer_value: Callable[[dict], Hashable]  # a valid normalised answer as one comparable value
    item_figure: str  # the figure of combine over one line that is an answer's correctness
    interval_figures: tuple[str, ...] = ()  # figures besides "score" with an interval under --ci
    graded_items: bool = False  # an answer can be partly right: no McNemar test

    def correctness(self, gold: dict, prediction: dict | None) -> float:
        """How right one answer is against its gold line, by the metric's own counts of that one
        line: 1.0 or 0.0 (exactly right or not), for discourse the passage's LAS."""
        return float(self.combine(self.line_counts(gold, prediction), 1)[self.item_figure])

    def metric(self, gold: list[dict], pred: dict[str, dict]) -> dict:
        """The figures for ``gold`` (records with their id) and ``pred`` (id -> submission record);
        ``score`` is the main one."""
        return metrics.metric(self, gold, pred)


def load_schema(key: str, kind: str) -> dict:
    """The JSON Schema ``kind`` ("input", "output" or "gold") of subtask ``key``."""
    return json.loads((SCHEMA_DIR / f"{key}.{kind}.schema.json").read_text(encoding="utf-8"))


def subtask_from_module(key: str, module: ModuleType, schemas: dict[str, dict] | None = None) -> Subtask:
    """The registry entry of a subtask module; ``schemas`` by kind, read from
    ``scoring/schemas/`` when not given."""
    schemas = schemas or {kind: load_schema(key, kind) for kind in SCHEMA_KINDS}
    return Subtask(
        key=key,
        number=module.NUMBER,
        title=module.TITLE,
        answer_fields=module.ANSWER_FIELDS,
        input_schema=schemas["input"],
        submission_schema=schemas["output"],
        gold_schema=schemas["gold"],
        normalise=module.normalise,
        check_input=module.check_input,
        check_answer=module.check_answer,
        count_names=module.COUNT_NAMES,
        line_counts=module.line_counts,
        combine=module.combine,
        agreement_figures=module.agreement_figures,
        majority=module.majority,
        answer_value=module.answer_value,
        item_figure=module.ITEM_FIGURE,
        interval_figures=getattr(module, "INTERVAL_FIGURES", ()),
        graded_items=getattr(module, "GRADED_ITEMS", False),
    )


SUBTASKS: dict[str, Subtask] = {
    key: subtask_from_module(key, importlib.import_module(f"{__name__}.{key}")) for key in SUBTASK_KEYS
}


def get_subtask(key: str) -> Subtask:
    """The registry entry of ``key``; KeyError naming the known keys otherwise."""
    try:
        return SUBTASKS[key]
    except KeyError:
        raise KeyError(f"unknown subtask {key!r}; expected one of {', '.join(SUBTASKS)}") from None
