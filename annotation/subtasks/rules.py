"""Rules that guide a person answering, beyond what the benchmark states.

The benchmark's own rules (shapes, labels, markers, tree validity) are the scorer's
(``scoring.subtasks.<key>``); a model's submission that breaks only a rule here is valid,
and simply wrong. A person saving such an answer has most likely slipped, so the save
service (``annotation.annotate.services.save_answer``, for the item page and the API
alike) refuses it with these problems: the ``rules`` part of the subtask's folder
(``annotation/subtasks/<key>/answers.py``); a subtask without one has no such rules.

A caution (the ``caution`` part, default none) is softer: the first submit is refused with its
problem, the same submit confirmed by the annotator is saved, and the caution's metadata is
kept with the annotation (numerals: words Morfeusz 2 does not know as numeral forms).

A rule's or a caution's problem is made by ``annotation.core.problems.problem_from`` from the
subtask's own table of texts (``MESSAGES`` beside its rules; a template "answer_rule/<name>" or
"caution/<name>", so that the code is ``answer_rule`` or ``caution`` whatever the subtask) and
its parameters, in the request's language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from annotation.subtasks import part
from scoring.problems import Problem

# (answer fields, item payload) -> refusals, each made from the subtask's MESSAGES
Rule = Callable[[dict, dict], list[Problem]]


def no_rules(answer: dict, payload: dict) -> list[Problem]:
    return []


def rule_refusals(subtask: str, answer: dict, payload: dict) -> list[Problem]:
    """What the subtask's rules for people refuse in ``answer`` to the item ``payload``."""
    return part(subtask, "rules", no_rules)(answer, payload)


@dataclass(frozen=True)
class Caution:
    """A submit the annotator is asked to confirm (``problem`` says why); once confirmed it is
    saved, and `metadata` is kept with the annotation (annotation.metadata) to say so."""

    problem: Problem
    metadata: dict


def no_caution(answer: dict, payload: dict) -> Caution | None:
    return None


def rule_caution(subtask: str, answer: dict, payload: dict) -> Caution | None:
    """What the subtask asks a person to confirm before ``answer`` is submitted (None: nothing)."""
    return part(subtask, "caution", no_caution)(answer, payload)
