"""Training and control pools, training rounds and qualification.

A pool is a dataset of its own (inputs with gold) linked to the dataset it serves
(``Dataset.pool_of``, ``pool_kind`` training or control), so the dataset's own items, its
exports, agreement and baseline stay whole. An annotator answers the training pool's items
first (a round); each answer is scored by the scorer's own counts of its line
(``Subtask.correctness``) and the round's score is the mean over its items
(``statistics.fmean``: summed exactly, whatever the order of the rows). The latest round
decides whether the annotator may work on real items (``annotation.annotate.qualification``).
"""

from __future__ import annotations

import json
import statistics

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.answers.refusals import answer_refusals
from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.core.storable import unstorable
from annotation.datasets.importing import import_dataset
from annotation.models import Dataset, Explanation, Item, TrainingAnswer, TrainingRound
from scoring.jsonl import read_jsonl
from scoring.problems import Problem
from scoring.subtasks import get_subtask

EXPLANATION_FIELD = "explanation"


def _without_explanations(gold: SourceFile) -> tuple[SourceFile, dict[str, str], list[Problem]]:
    """The gold file without its optional ``explanation`` fields (line numbers kept), the
    explanations by item id, and the problems of explanations that are no text. A pool's gold
    is a few dozen lines, so it is read whole."""
    with gold.open() as stream:
        data = stream.read()
    raw_lines = data.split(b"\n")
    explanations: dict[str, str] = {}
    problems = []
    lines, _problems = read_jsonl(data, gold.name)
    for line in lines:
        if EXPLANATION_FIELD not in line.record:
            continue
        record = dict(line.record)
        text = record.pop(EXPLANATION_FIELD)
        fault = "must be text" if not isinstance(text, str) else "must not hold U+0000" if unstorable(text) else None
        if fault is not None:
            problems.append(Problem(EXPLANATION_FIELD, fault, file=gold.name, line=line.number))
        elif text.strip() and isinstance(record.get("id"), str):
            explanations[record["id"]] = text.strip()
        raw_lines[line.number - 1] = json.dumps(record, ensure_ascii=False).encode("utf-8")
    return SourceFile(name=gold.name, data=b"\n".join(raw_lines)), explanations, problems


def import_pool(
    *,
    kind: str,
    dataset: Dataset,
    subtask: str,
    name: str,
    inputs: SourceFile,
    gold: SourceFile | None,
    created_by: AbstractBaseUser | None = None,
) -> Dataset:
    """Import a training or control pool of ``dataset``: inputs with gold (and, per gold line,
    an optional ``explanation``), all or nothing; raises Refused."""
    problems = []
    if kind not in Dataset.PoolKind.values:
        problems.append(Problem("kind", f"a pool is one of {', '.join(Dataset.PoolKind.values)}"))
    if dataset.pool_of_id is not None:
        problems.append(Problem("dataset", f"{dataset.name!r} is itself a {dataset.pool_kind} pool"))
    if subtask != dataset.subtask:
        problems.append(Problem("subtask", f"the pool's subtask must be that of {dataset.name!r}: {dataset.subtask}"))
    if gold is None:
        problems.append(Problem("gold", f"a {kind} pool needs its gold file"))
    elif Dataset.objects.filter(pool_of=dataset, pool_kind=kind).exists():
        problems.append(Problem("dataset", f"{dataset.name!r} has a {kind} pool already"))
    if problems:
        raise Refused(problems)
    stripped, explanations, explanation_problems = _without_explanations(gold)
    if explanation_problems:
        raise Refused(explanation_problems)
    try:
        with transaction.atomic():
            pool = import_dataset(subtask=subtask, name=name, inputs=inputs, gold=stripped, created_by=created_by)
            missing = pool.items.filter(gold__isnull=True).values_list("external_id", flat=True)[:5]
            if missing:
                raise Refused([Problem("gold", f"every item of a {kind} pool needs gold; none for {', '.join(missing)}",
                                       file=gold.name)])
            pool.pool_of, pool.pool_kind = dataset, kind
            pool.save(update_fields=["pool_of", "pool_kind"])
            item_ids = dict(pool.items.values_list("external_id", "id"))
            Explanation.objects.bulk_create(
                Explanation(item_id=item_ids[external_id], text=text) for external_id, text in explanations.items()
            )
    except IntegrityError:
        # Another import made a pool of this kind between the check and the write.
        raise Refused([Problem("dataset", f"{dataset.name!r} has a {kind} pool already")]) from None
    return pool


def set_qualification(dataset: Dataset, *, threshold: float | None, control_rate: int, control_seed: str) -> None:
    """The organizer's settings: the threshold (0..1 or None), one control item in
    ``control_rate`` positions (0: none) and the seed of the interleaving."""
    problems = []
    if threshold is not None and not 0 <= threshold <= 1:
        problems.append(Problem("threshold", _("The threshold is a share between 0 and 1, e.g. 0.8.")))
    if control_rate == 1 or control_rate < 0:
        problems.append(Problem("control_rate", _("One control item in N positions needs N of at least 2 (0: none).")))
    if len(control_seed) > Dataset._meta.get_field("control_seed").max_length or unstorable(control_seed):
        problems.append(Problem("control_seed", _("The seed is at most 100 characters of text.")))
    if problems:
        raise Refused(problems)
    dataset.threshold, dataset.control_rate, dataset.control_seed = threshold, control_rate, control_seed
    dataset.save(update_fields=["threshold", "control_rate", "control_seed"])


def set_explanation(item: Item, text: str) -> None:
    """The organizer's explanation of a training item's gold answer, written on the page
    (empty text: none)."""
    if not Item.objects.filter(pk=item.pk, dataset__pool_kind=Dataset.PoolKind.TRAINING).exists():
        raise Refused.because(_("Only training items have explanations."))
    if unstorable(text):
        raise Refused.because(_("The explanation holds the character U+0000, which cannot be stored: remove it."))
    text = text.strip()
    if text:
        Explanation.objects.update_or_create(item=item, defaults={"text": text})
    else:
        Explanation.objects.filter(item=item).delete()


def current_round(dataset: Dataset, annotator: AbstractBaseUser) -> TrainingRound:
    """The annotator's latest training round of the dataset, the first one started (stored)
    if none: a write, for POSTs (the first training answer, a release). Pages read
    ``selectors.current_round``, which starts nothing."""
    latest = TrainingRound.objects.filter(dataset=dataset, annotator=annotator).order_by("-attempt").first()
    if latest is not None:
        return latest
    try:
        with transaction.atomic():
            return TrainingRound.objects.create(dataset=dataset, annotator=annotator, attempt=1)
    except IntegrityError:  # started in another tab meanwhile
        return TrainingRound.objects.get(dataset=dataset, annotator=annotator, attempt=1)


def answer_training_item(*, round: TrainingRound, item: Item, answer: object) -> TrainingAnswer:
    """Store the answer to a training item of the round and score it; the last item's answer
    finishes the round with the mean correctness. Raises Refused (nothing stored) for an
    answer the item page would refuse, an item of another pool, a round that is over or an
    item already answered in it. A round not started yet (``selectors.current_round``: unsaved)
    is started by its first answer that is not refused."""
    pool_items = Item.objects.filter(dataset__pool_of_id=round.dataset_id, dataset__pool_kind=Dataset.PoolKind.TRAINING)
    if not pool_items.filter(pk=item.pk).exists():
        raise Refused.because(_("This is not an item of the dataset's training round."))
    refusals = answer_refusals(round.dataset.subtask, answer, item.payload)
    if refusals:
        raise Refused(refusals)
    subtask = get_subtask(round.dataset.subtask)
    if round.pk is None:
        round = current_round(round.dataset, round.annotator)
    with transaction.atomic():
        round = TrainingRound.objects.select_for_update().get(pk=round.pk)
        latest = TrainingRound.objects.filter(dataset_id=round.dataset_id, annotator_id=round.annotator_id).aggregate(
            latest=Max("attempt"))["latest"]
        if round.finished_at is not None or round.attempt != latest:
            raise Refused.because(_("This training round is over; its answers can no longer change."))
        if round.answers.filter(item=item).exists():
            raise Refused.because(_("This training item is answered already."))
        stored = TrainingAnswer.objects.create(
            round=round, item=item, answer=answer,
            correctness=subtask.correctness(item.gold.payload, subtask.normalise(answer)),
        )
        scores = list(round.answers.values_list("correctness", flat=True))
        if len(scores) == pool_items.count():
            # fmean sums exactly: the score does not depend on the order the rows come in.
            round.score = statistics.fmean(scores)
            round.finished_at = timezone.now()
            round.save(update_fields=["score", "finished_at"])
    return stored


def allow_retry(dataset: Dataset, annotator: AbstractBaseUser) -> TrainingRound:
    """A fresh training round for an annotator whose latest round is finished."""
    with transaction.atomic():
        latest = (TrainingRound.objects.select_for_update()
                  .filter(dataset=dataset, annotator=annotator).order_by("-attempt").first())
        if latest is None:
            raise Refused.because(_("%(name)s has not started the training round yet.")
                                  % {"name": annotator.get_username()})
        if latest.finished_at is None:
            raise Refused.because(_("%(name)s has a training round in progress already.")
                                  % {"name": annotator.get_username()})
        return TrainingRound.objects.create(dataset=dataset, annotator=annotator, attempt=latest.attempt + 1)


def release_from_training(dataset: Dataset, annotator: AbstractBaseUser, organizer: AbstractBaseUser | None) -> TrainingRound:
    """Let the annotator work on real items whatever their training score (recorded on their
    latest round, started if none); only an annotator with items of the dataset. ``organizer``:
    who released them (None: not known, e.g. from a command run without ``--by``)."""
    if not dataset.assignments.filter(annotator=annotator).exists():
        raise Refused.because(_("%(name)s has no items of this dataset.") % {"name": annotator.get_username()})
    with transaction.atomic():
        latest = current_round(dataset, annotator)
        latest.released_at, latest.released_by = timezone.now(), organizer
        latest.save(update_fields=["released_at", "released_by"])
    return latest
