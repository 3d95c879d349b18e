"""The six PoLiS subtasks: one registry entry each.

Everything in the project that needs a subtask's schemas, checks, normaliser or
metric takes it from here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from scoring import checks, metrics, normalise
from scoring.problems import Problem

SUBTASK_KEYS = ("morphosyntax", "numerals", "wsd", "coreference", "discourse", "commas")

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


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
    metric: Callable[[list[dict], dict[str, dict]], dict]
    check_input: Callable[[dict], list[Problem]]  # input record -> problems beyond the schema
    check_answer: Callable[[dict, dict | None], list[Problem]]  # (answer or gold fields, item or None) -> problems


def load_schema(key: str, kind: str) -> dict:
    """The JSON Schema ``kind`` ("input", "output" or "gold") of subtask ``key``."""
    return json.loads((SCHEMA_DIR / f"{key}.{kind}.schema.json").read_text(encoding="utf-8"))


def _subtask(key, number, title, answer_fields, normaliser, metric, check_input, check_answer) -> Subtask:
    return Subtask(
        key=key,
        number=number,
        title=title,
        answer_fields=answer_fields,
        input_schema=load_schema(key, "input"),
        submission_schema=load_schema(key, "output"),
        gold_schema=load_schema(key, "gold"),
        normalise=normaliser,
        metric=metric,
        check_input=check_input,
        check_answer=check_answer,
    )


SUBTASKS: dict[str, Subtask] = {
    subtask.key: subtask
    for subtask in (
        _subtask("morphosyntax", 1, "Morphosyntactic error detection and correction", ("answer", "corrected_sentence"),
                 normalise.normalise_morphosyntax, metrics.morphosyntax_metrics, checks.check_no_input, checks.check_morphosyntax_answer),
        _subtask("numerals", 2, "Contextual numeral inflection", ("answer",),
                 normalise.normalise_numerals, metrics.numerals_metrics, checks.check_numerals_input, checks.check_numerals_answer),
        _subtask("wsd", 3, "Same sense in context", ("answer",),
                 normalise.normalise_label, metrics.label_metrics, checks.check_wsd_input, checks.check_label_answer),
        _subtask("coreference", 4, "Coreference antecedent selection", ("answer",),
                 normalise.normalise_label, metrics.label_metrics, checks.check_coreference_input, checks.check_label_answer),
        _subtask("discourse", 5, "Universal discourse parsing", ("discourse_units",),
                 normalise.normalise_discourse, metrics.discourse_metrics, checks.check_discourse_input, checks.check_discourse_answer),
        _subtask("commas", 6, "Comma placement", ("commas", "optional"),
                 normalise.normalise_commas, metrics.commas_metrics, checks.check_commas_input, checks.check_commas_answer),
    )
}


def get_subtask(key: str) -> Subtask:
    """The registry entry of ``key``; KeyError naming the known keys otherwise."""
    try:
        return SUBTASKS[key]
    except KeyError:
        raise KeyError(f"unknown subtask {key!r}; expected one of {', '.join(SUBTASK_KEYS)}") from None
