"""Dawid and Skene (1979) over the answers of several annotators: what `dawid-skene` and the
application's Dawid–Skene source run.

``fit`` is the expectation-maximisation of crowd-kit 1.4.2's ``DawidSkene`` (no gold, no
initial error matrices), step for step, in numpy:

- the classes are the labels the answers give, in sorted order;
- start: the soft majority vote (per task, the share of its answers giving each class), the
  priors its mean over tasks, the error matrices from it (M-step);
- at most ``MAX_ITERATIONS`` rounds of: E-step (base-2 logarithms of the priors, clipped at
  ``EPSILON``, plus those of the error cells of each answer; each row shifted to its maximum,
  then exponentiated and normalised), priors = the posteriors' mean, M-step (per annotator and
  label given, the sum of the posteriors of their tasks; clipped at ``EPSILON``; divided per
  true class by the annotator's column sum over the labels they gave), and the evidence lower
  bound per answer (natural logarithms, priors and posteriors clipped at ``EPSILON``); it stops
  when the bound gains less than ``TOLERANCE``;
- the posteriors returned are the last E-step's, clipped at ``EPSILON`` (crowd-kit clips them
  in place while computing the bound), and each task's class is the first class of the highest
  posterior in sorted order (``idxmax``).

``answer_posteriors`` and ``dawid_skene_answers`` apply it to a subtask whose module says how
an answer maps to classes (``dawid_skene_units``: one class per unit of the item: wsd and
coreference their label, morphosyntax its label, commas a value per marker) and how the chosen
classes make the item's answer (``dawid_skene_answer``); a subtask without them (numerals,
discourse: their answers are specific to each item) is not offered (``NotOffered``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from math import prod

import numpy as np

from scoring.reliability import AnswerTable
from scoring.subtasks import Subtask, get_subtask

EPSILON = 1e-10
MAX_ITERATIONS = 100
TOLERANCE = 1e-5


class NotOffered(ValueError):
    """The subtask's answers share no set of classes across items; ``str()`` says so."""


def not_offered_reason(subtask: Subtask) -> str:
    return (f"Dawid–Skene is not offered for {subtask.key}: its answers are specific to each item "
            "(no set of classes is shared across items)")


def offered(subtask: Subtask) -> bool:
    return subtask.dawid_skene_units is not None and subtask.dawid_skene_answer is not None


@dataclass(frozen=True)
class Fit:
    """The fitted model: ``posteriors`` (tasks x classes, clipped as crowd-kit returns them),
    ``chosen`` (per task the index of its class), ``priors`` (classes), ``errors`` (annotators x
    label given x true class; 0 where an annotator never gave the label), ``iterations`` (EM
    rounds run), ``accuracy`` (per annotator: sum over classes of prior x the diagonal cell)."""

    classes: tuple[Hashable, ...]
    posteriors: np.ndarray
    chosen: np.ndarray
    priors: np.ndarray
    errors: np.ndarray
    iterations: int
    loss_history: list[float]
    accuracy: np.ndarray


def fit(tasks: Sequence[int], workers: Sequence[int], labels: Sequence[Hashable], n_tasks: int, n_workers: int) -> Fit:
    """Dawid–Skene over answer rows (task index, annotator index, label); every task 0..n_tasks-1
    must have at least one row."""
    task = np.asarray(tasks, dtype=np.intp)
    worker = np.asarray(workers, dtype=np.intp)
    classes = tuple(sorted(set(labels)))
    index = {value: position for position, value in enumerate(classes)}
    label = np.fromiter((index[value] for value in labels), dtype=np.intp, count=len(labels))
    n_classes = len(classes)
    if not len(task):
        raise ValueError("no answer to fit")
    if np.bincount(task, minlength=n_tasks).min() == 0:
        raise ValueError("a task without an answer")
    n_cells = n_workers * n_classes
    cell = worker * n_classes + label  # the (annotator, label given) pair of each row
    observed = (np.bincount(cell, minlength=n_cells) > 0).reshape(n_workers, n_classes)
    # The rows by task, in their order within each task (the order pandas sums a group in).
    by_task = np.argsort(task, kind="stable")
    cells_by_task = cell[by_task]
    task_starts = np.flatnonzero(np.r_[True, np.diff(task[by_task]) != 0])
    answers_per_task = np.bincount(task, minlength=n_tasks)

    def m_step(posteriors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The error matrices, and the sums they are made from (cells x classes)."""
        columns = posteriors.T.copy()
        sums = np.stack([np.bincount(cell, weights=columns[column][task], minlength=n_cells)
                         for column in range(n_classes)], axis=1)
        errors = np.where(observed[:, :, None], np.maximum(sums.reshape(n_workers, n_classes, n_classes), EPSILON), 0.0)
        totals = errors.sum(axis=1, keepdims=True)  # 0 for an annotator without an answer
        return np.divide(errors, totals, out=np.zeros_like(errors), where=totals > 0), sums

    def e_step(priors: np.ndarray, errors: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):  # an unobserved cell is never read
            log_errors = np.log2(errors).reshape(n_cells, n_classes)
        sums = np.add.reduceat(log_errors[cells_by_task], task_starts, axis=0)
        log_likelihoods = np.log2(np.maximum(priors, EPSILON)) + sums
        scaled = np.exp2(log_likelihoods - log_likelihoods.max(axis=1, keepdims=True))
        return scaled / scaled.sum(axis=1, keepdims=True)

    def evidence_lower_bound(posteriors: np.ndarray, priors: np.ndarray, errors: np.ndarray, sums: np.ndarray) -> float:
        """The expected log joint over the rows, summed per (annotator, label) cell with the
        M-step's sums of the posteriors, plus the entropy of the clipped posteriors."""
        with np.errstate(divide="ignore", invalid="ignore"):
            log_errors = np.log(errors).reshape(n_cells, n_classes)
            joint = float(np.where(sums > 0, log_errors * sums, 0.0).sum())
        joint += float(np.log(np.maximum(priors, EPSILON)) @ (answers_per_task @ posteriors))
        clipped = np.maximum(posteriors, EPSILON)
        return joint - float((np.log(clipped) * clipped).sum())

    counts = np.bincount(task * n_classes + label, minlength=n_tasks * n_classes).reshape(n_tasks, n_classes)
    posteriors = counts / counts.sum(axis=1, keepdims=True)
    priors = posteriors.mean(axis=0)
    errors, _sums = m_step(posteriors)
    loss = -np.inf
    history: list[float] = []
    for _round in range(MAX_ITERATIONS):
        posteriors = e_step(priors, errors)
        priors = posteriors.mean(axis=0)
        errors, sums = m_step(posteriors)
        new_loss = evidence_lower_bound(posteriors, priors, errors, sums) / len(task)
        history.append(new_loss)
        if new_loss - loss < TOLERANCE:
            break
        loss = new_loss
    posteriors = np.maximum(posteriors, EPSILON)
    accuracy = (errors[:, np.arange(n_classes), np.arange(n_classes)] * priors).sum(axis=1)
    return Fit(classes, posteriors, posteriors.argmax(axis=1), priors, errors, len(history), history, accuracy)


# A subtask's answers as classes --------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """One answer the source could give an item: its classes (one per unit), the answer they
    make (None when they make none, e.g. a label without a majority correction) and its
    posterior (the product over the units)."""

    classes: tuple[str, ...]
    answer: dict | None
    posterior: float


@dataclass(frozen=True)
class ItemPosteriors:
    """Per item: the posterior of each class in each unit, and the candidates: the classes of
    every answer given and the classes chosen, each once, highest posterior first."""

    item_id: str
    units: list[dict[str, float]]
    chosen: tuple[str, ...]
    candidates: list[Candidate]

    def of_classes(self, classes: Sequence[str]) -> float:
        """The posterior of an answer with these classes (0 for a class no answer gave)."""
        return prod(unit.get(value, 0.0) for unit, value in zip(self.units, classes, strict=True))

    def against(self, subtask: Subtask, gold_answer: dict, item: dict) -> float:
        """The highest posterior of a candidate whose classes differ from ``gold_answer``'s
        (its answer fields, normalised), or 0.0 when every candidate is the gold's."""
        gold_classes = tuple(subtask.dawid_skene_units(gold_answer, item))
        return max((candidate.posterior for candidate in self.candidates if candidate.classes != gold_classes),
                   default=0.0)


@dataclass(frozen=True)
class DawidSkeneAnswers:
    """The source over an answer table: per item its posteriors (items with an answer), the
    answer chosen for every item (None with the reason), and the fit's figures (``figures``)."""

    items: dict[str, ItemPosteriors]
    answers: dict[str, tuple[dict | None, str | None]]
    model: Fit | None
    annotators: list[str]
    n_answers: list[int]  # per annotator, the answers fitted

    def figures(self) -> dict:
        """What the report's ``dawid_skene`` and `dawid-skene --json` say: the classes, the EM
        rounds run, and per annotator their estimated accuracy and the answers it is fitted on."""
        model = self.model
        return {
            "offered": True,
            "classes": [] if model is None else list(model.classes),
            "iterations": 0 if model is None else model.iterations,
            "max_iterations": MAX_ITERATIONS,
            "tolerance": TOLERANCE,
            "epsilon": EPSILON,
            "annotators": [
                {"annotator": name, "n_answers": n_answers,
                 "accuracy": None if model is None or not n_answers else float(model.accuracy[position])}
                for position, (name, n_answers) in enumerate(zip(self.annotators, self.n_answers))
            ],
            "priors": {} if model is None else {str(value): float(prior) for value, prior in zip(model.classes, model.priors)},
        }


def dawid_skene_answers(key: str, table: AnswerTable, annotators: Sequence[str]) -> DawidSkeneAnswers:
    """Dawid–Skene over every valid answer of ``table`` (its files are ``annotators``); each
    item's answer from its chosen classes, as the majority source gives one: none for an item
    with no answer or one answer (reasons "no answer", "one answer"), or what the subtask's
    ``dawid_skene_answer`` says. Raises NotOffered for a subtask without a shared set of classes."""
    subtask = get_subtask(key)
    if not offered(subtask):
        raise NotOffered(not_offered_reason(subtask))
    tasks, workers, labels = [], [], []
    units_of: dict[str, range] = {}  # item id -> its task indices
    given: dict[str, list[tuple[str, ...]]] = {}  # item id -> the classes of each answer
    n_answers = [0] * len(table.files)
    n_tasks = 0
    for item in table.items:
        item_id = item["id"]
        answered = [(position, answers[item_id]) for position, answers in enumerate(table.files) if item_id in answers]
        if not answered:
            continue
        classes_given = [tuple(subtask.dawid_skene_units(answer, item)) for _position, answer in answered]
        units_of[item_id] = range(n_tasks, n_tasks + len(classes_given[0]))
        for (position, _answer), classes in zip(answered, classes_given, strict=True):
            n_answers[position] += 1
            for offset, value in enumerate(classes):
                tasks.append(n_tasks + offset)
                workers.append(position)
                labels.append(value)
        given[item_id] = classes_given
        n_tasks += len(classes_given[0])
    model = fit(tasks, workers, labels, n_tasks, len(table.files)) if tasks else None
    items: dict[str, ItemPosteriors] = {}
    answers: dict[str, tuple[dict | None, str | None]] = {}
    posteriors, chosen_index = (model.posteriors.tolist(), model.chosen.tolist()) if model else ([], [])
    for item in table.items:
        item_id = item["id"]
        if item_id not in units_of:
            answers[item_id] = (None, "no answer")
            continue
        rows = units_of[item_id]
        units = [dict(zip(model.classes, posteriors[row])) for row in rows]
        chosen = tuple(model.classes[chosen_index[row]] for row in rows)
        item_answers = table.answers_of(item_id)
        candidates = []
        for classes in dict.fromkeys([*given[item_id], chosen]):
            answer, _reason = subtask.dawid_skene_answer(classes, item_answers, item)
            candidates.append(Candidate(classes, answer, prod(unit[value] for unit, value in zip(units, classes))))
        candidates.sort(key=lambda candidate: -candidate.posterior)
        items[item_id] = ItemPosteriors(item_id, units, chosen, candidates)
        answers[item_id] = ((None, "one answer") if len(item_answers) == 1
                            else subtask.dawid_skene_answer(chosen, item_answers, item))
    return DawidSkeneAnswers(items, answers, model, list(annotators), n_answers)


def answer_posteriors(key: str, table: AnswerTable) -> dict[str, ItemPosteriors]:
    """Per item with an answer: the posterior of each candidate answer (commas: the product
    over the markers), the Dawid–Skene fit over every valid answer of ``table``."""
    return dawid_skene_answers(key, table, [f"file {number}" for number in range(1, len(table.files) + 1)]).items
