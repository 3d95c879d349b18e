"""The registry of the PoLiS subtasks: one module per subtask, found by discovery.

``scoring/subtasks/<key>.py`` holds everything the benchmark says about subtask ``key``
(constants, input and answer checks, normaliser, metric, title); its JSON Schemas are
``<key>.{input,output,gold}.schema.json`` in the ``schemas`` folder beside the package the
module sits in (``scoring/schemas/``). Every module of this package's path whose name has no
leading ``_`` is a subtask, its name the key: ``SUBTASKS`` (by number) is the one list of keys,
and everything in the project that needs a subtask takes it from there. Code shared by a family
of subtasks lives outside the package (``scoring/choice.py``: the four-way choices).

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

and optionally, each with its default:

- ``INTERVAL_FIGURES``: figures besides ``score`` that ``score --ci`` gives an interval for
  (scoring.intervals); default none;
- ``GRADED_ITEMS = True`` when one answer can be partly right (``ITEM_FIGURE`` between 0 and
  1), so that no test of right and wrong items applies (scoring.significance); default False;
- ``breakdown(subtask, gold, pred, rows) -> dict``: the report's figures beyond the metric's
  (scoring.breakdown; ``rows`` the count rows of ``gold``'s lines); default ``{}``;
- ``gold_answer(gold) -> answer fields``: the gold line as one answer, to be shown and compared
  beside people's (numerals: its first accepted form); default the answer fields it holds;
- ``accepted_forms(gold) -> [str]``: every answer text the gold line accepts, listed beside
  it (numerals); default none;
- ``pair_agreement(subtask, reference, other) -> float or None``: how far two annotators agree
  on the items both answered (id -> valid normalised answer, the same ids); default the share
  of equal ``answer_value``s;
- ``disagreement_kinds(answers, item) -> [str]``: what two or more differing valid answers to
  ``item`` differ in (a label pair, a position, a relation); default none;
- ``dawid_skene_units(answer, item) -> (str, ...)`` and ``dawid_skene_answer(classes, answers,
  item) -> (answer or None, reason or None)``: a valid normalised answer as one class per unit of
  the item (wsd, coreference: its label; commas: required, optional or none per marker), and the
  item's answer from the class chosen in each unit and its valid answers (scoring.dawid_skene);
  default none of either: the Dawid–Skene source is not offered (numerals, discourse, whose
  answers are specific to each item).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from scoring import metrics
from scoring.problems import Problem
from scoring.reliability import AnswerTable, Figures

SCHEMA_KINDS = ("input", "output", "gold")


def no_breakdown(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    return {}


def no_accepted_forms(gold: dict) -> list[str]:
    return []


def share_equal(subtask: Subtask, reference: dict[str, dict], other: dict[str, dict]) -> float | None:
    """The share of the items (the ids of ``reference``, all answered in ``other``) on which the
    two answers are one value; None without an item."""
    if not reference:
        return None
    equal = sum(subtask.answer_value(answer) == subtask.answer_value(other[item_id]) for item_id, answer in reference.items())
    return equal / len(reference)


def no_disagreement_kinds(answers: list[dict], item: dict) -> list[str]:
    return []


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
    # The optional parts, each with its default (see the module's docstring).
    breakdown: Callable[[Subtask, list[dict], dict[str, dict], list[tuple[int, ...]]], dict] = no_breakdown
    gold_answer: Callable[[dict], dict] | None = None  # None: the answer fields of the gold line
    accepted_forms: Callable[[dict], list[str]] = no_accepted_forms
    pair_agreement: Callable[[Subtask, dict[str, dict], dict[str, dict]], float | None] = share_equal
    disagreement_kinds: Callable[[list[dict], dict], list[str]] = no_disagreement_kinds
    dawid_skene_units: Callable[[dict, dict], tuple[str, ...]] | None = None  # None: not offered
    dawid_skene_answer: Callable[[tuple[str, ...], list[dict], dict], tuple[dict | None, str | None]] | None = None

    def gold_answer_fields(self, gold: dict) -> dict:
        """The gold line as answer fields, to be compared as one more answer."""
        if self.gold_answer is not None:
            return self.gold_answer(gold)
        return {name: gold[name] for name in self.answer_fields if name in gold}

    def correctness(self, gold: dict, prediction: dict | None) -> float:
        """How right one answer is against its gold line, by the metric's own counts of that one
        line: 1.0 or 0.0 (exactly right or not), for discourse the passage's LAS."""
        return float(self.combine(self.line_counts(gold, prediction), 1)[self.item_figure])

    def metric(self, gold: list[dict], pred: dict[str, dict]) -> dict:
        """The figures for ``gold`` (records with their id) and ``pred`` (id -> submission record);
        ``score`` is the main one."""
        return metrics.metric(self, gold, pred)


def schema_dir(module: ModuleType) -> Path:
    """Where the schemas of a subtask module are: ``schemas`` beside the package it sits in."""
    return Path(module.__file__).resolve().parent.parent / "schemas"


def load_schema(key: str, kind: str, folder: Path | None = None) -> dict:
    """The JSON Schema ``kind`` ("input", "output" or "gold") of subtask ``key``, from
    ``folder`` (default: the schemas of ``scoring/``)."""
    folder = folder or Path(__file__).resolve().parent.parent / "schemas"
    return json.loads((folder / f"{key}.{kind}.schema.json").read_text(encoding="utf-8"))


# The optional parts of a subtask module: (module attribute, Subtask field).
OPTIONAL_PARTS = (("INTERVAL_FIGURES", "interval_figures"), ("GRADED_ITEMS", "graded_items"), ("breakdown", "breakdown"), ("gold_answer", "gold_answer"),
                  ("accepted_forms", "accepted_forms"), ("pair_agreement", "pair_agreement"),
                  ("disagreement_kinds", "disagreement_kinds"), ("dawid_skene_units", "dawid_skene_units"),
                  ("dawid_skene_answer", "dawid_skene_answer"))


def subtask_from_module(key: str, module: ModuleType, schemas: dict[str, dict] | None = None) -> Subtask:
    """The registry entry of a subtask module; ``schemas`` by kind, read from the module's
    schema folder when not given; every optional part the module lacks gets its default."""
    schemas = schemas or {kind: load_schema(key, kind, schema_dir(module)) for kind in SCHEMA_KINDS}
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
        **{field: getattr(module, name) for name, field in OPTIONAL_PARTS if hasattr(module, name)},
    )


SUBTASKS: dict[str, Subtask] = {}


def discover() -> None:
    """Fill ``SUBTASKS`` from the modules on this package's path, by number (again after a
    folder was added to ``__path__``, as the tests add a subtask of their own)."""
    found = [subtask_from_module(info.name, importlib.import_module(f"{__name__}.{info.name}"))
             for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")]
    SUBTASKS.clear()
    SUBTASKS.update((subtask.key, subtask) for subtask in sorted(found, key=lambda subtask: subtask.number))


discover()


def get_subtask(key: str) -> Subtask:
    """The registry entry of ``key``; KeyError naming the known keys otherwise."""
    try:
        return SUBTASKS[key]
    except KeyError:
        raise KeyError(f"unknown subtask {key!r}; expected one of {', '.join(SUBTASKS)}") from None
