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

import itertools
import json
import statistics

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.annotate.qualification import passed
from annotation.answers.refusals import answer_refusals
from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.core.problems import problem
from annotation.core.storable import unstorable
from annotation.datasets.importing import import_dataset
from annotation.datasets.removing import delete_pool_to_replace
from annotation.models import Dataset, Explanation, Item, RemovalRecord, TrainingAnswer, TrainingRound
from annotation.training.signals import training_round_finished
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
        if not isinstance(text, str) or unstorable(text):
            fault = "type/explanation" if not isinstance(text, str) else "unstorable/explanation"
            problems.append(problem(fault, EXPLANATION_FIELD, gold.name, line.number))
        elif text.strip() and isinstance(record.get("id"), str):
            explanations[record["id"]] = text.strip()
        raw_lines[line.number - 1] = json.dumps(record, ensure_ascii=False).encode("utf-8")
    return SourceFile(name=gold.name, data=b"\n".join(raw_lines)), explanations, problems


def import_pool(
    *,
    kind: str,
    dataset: Dataset,
    subtask: str,
    name: str | None,
    inputs: SourceFile,
    gold: SourceFile | None,
    created_by: AbstractBaseUser | None = None,
    replace: bool = False,
) -> Dataset:
    """Import a training or control pool of ``dataset``: inputs with gold for every item (and,
    per gold line, an optional ``explanation``), none of them an input of the dataset or of its
    other pool (by id or by text), all or nothing; raises Refused. ``replace``: the pool of
    that kind is deleted first (recorded), which only a pool no one has started allows.
    ``name`` None: DATASET.KIND, or DATASET.KIND-2... while an archived pool has that name."""
    problems = []
    if kind not in Dataset.PoolKind.values:
        problems.append(problem("pool_kind", "kind", value=kind))
    if dataset.pool_of_id is not None:
        problems.append(problem("pool_of_pool", "dataset", name=dataset.name))
    if subtask != dataset.subtask:
        problems.append(problem("pool_subtask", "subtask", name=dataset.name, subtask=dataset.subtask))
    if gold is None:
        problems.append(problem("required/pool_gold", "gold"))
    if problems:
        raise Refused(problems)
    stripped, explanations, explanation_problems = _without_explanations(gold)
    if explanation_problems:
        raise Refused(explanation_problems)
    try:
        with transaction.atomic():
            current = Dataset.objects.select_for_update().filter(
                pool_of=dataset, pool_kind=kind, archived_at__isnull=True).first()
            if current is not None:
                if not replace:
                    raise Refused([_pool_exists(dataset, kind)])
                delete_pool_to_replace(current, created_by)
            pool = import_dataset(subtask=subtask, name=name or _free_pool_name(dataset, kind), inputs=inputs,
                                  gold=stripped, created_by=created_by)
            shared = _shared_inputs(pool, dataset, inputs)
            if shared:
                raise Refused(shared)
            pool.pool_of, pool.pool_kind = dataset, kind
            pool.save(update_fields=["pool_of", "pool_kind"])
            item_ids = dict(pool.items.values_list("external_id", "id"))
            Explanation.objects.bulk_create(
                Explanation(item_id=item_ids[external_id], text=text) for external_id, text in explanations.items()
            )
    except IntegrityError:
        # Another import made a pool of this kind between the check and the write.
        raise Refused([_pool_exists(dataset, kind)]) from None
    return pool


def _free_pool_name(dataset: Dataset, kind: str) -> str:
    taken = set(Dataset.objects.filter(name__startswith=f"{dataset.name}.{kind}").values_list("name", flat=True))
    return next(name for number in itertools.count(1)
                if (name := f"{dataset.name}.{kind}" + (f"-{number}" if number > 1 else "")) not in taken)


def _pool_exists(dataset: Dataset, kind: str) -> Problem:
    return problem("pool_exists", "dataset", name=dataset.name, pool=str(RemovalRecord.Kind(kind).label), kind=kind)


def _text(payload: dict) -> str:
    """An input's text: the record without its id, as canonical JSON."""
    return json.dumps({key: value for key, value in payload.items() if key != "id"}, sort_keys=True, ensure_ascii=False)


SHARED_BATCH = 500


def _line_numbers(source: SourceFile) -> dict[str, int]:
    """The id of each line of an imported (so sound) inputs file -> its line number."""
    numbers = {}
    with source.open() as stream:
        for number, raw in enumerate(stream, 1):
            if raw.strip():
                numbers[json.loads(raw)["id"]] = number
    return numbers


def _shared_inputs(pool: Dataset, dataset: Dataset, pool_inputs: SourceFile) -> list[Problem]:
    """The pool's inputs that are also inputs of ``dataset`` or of its other serving pool, by id
    or by identical text: a training item shown with its gold would give a test item's answer
    away, and a control item that is a real item would be answered twice. The other side is
    narrowed in the database by the ids and the text fields of a batch of the pool's records,
    then compared whole; the first batch with shared inputs ends the search (a test set
    uploaded as a pool by mistake is refused at its first batch)."""
    numbers = _line_numbers(pool_inputs)
    pool_items = pool.items.order_by("ordinal").values_list("external_id", "payload")
    problems: list[Problem] = []
    for start in range(0, len(numbers), SHARED_BATCH):
        batch = dict(pool_items[start:start + SHARED_BATCH])
        by_text = {_text(payload): external_id for external_id, payload in batch.items()}
        same_fields = Q(pk__in=[])
        for payload in batch.values():
            scalars = {f"payload__{key}": value for key, value in payload.items() if key != "id" and isinstance(value, str)}
            if scalars:
                same_fields |= Q(**scalars)
        others = Item.objects.filter(
            Q(dataset=dataset) | Q(dataset__pool_of=dataset, dataset__archived_at__isnull=True),
            Q(external_id__in=list(batch)) | same_fields,
        ).exclude(dataset=pool).values_list("external_id", "payload", "dataset__name", "dataset__pool_kind")
        for external_id, payload, owner, owner_kind in others:
            where = (str(RemovalRecord.Kind(owner_kind).label) if owner_kind
                     else _("the dataset “%(name)s”") % {"name": owner})
            if external_id in batch:
                problems.append(problem("shared_input", "id", pool_inputs.name, numbers[external_id], id=external_id,
                                        where=where, dataset=owner))
            elif _text(payload) in by_text:
                own_id = by_text[_text(payload)]
                problems.append(problem("shared_input/text", "id", pool_inputs.name, numbers[own_id], id=own_id,
                                        other=external_id, where=where, dataset=owner))
        if problems:
            break
    return sorted(problems, key=lambda problem: problem.line)


def set_qualification(dataset: Dataset, *, threshold: float | None, control_rate: int, control_seed: str) -> None:
    """The organizer's settings: the threshold (0..1 or None), one control item in
    ``control_rate`` positions (0: none) and the seed of the interleaving."""
    problems = []
    if threshold is not None and not 0 <= threshold <= 1:
        problems.append(problem("threshold", "threshold", value=threshold))
    if control_rate == 1 or control_rate < 0:
        problems.append(problem("control_rate", "control_rate", value=control_rate))
    if len(control_seed) > Dataset._meta.get_field("control_seed").max_length or unstorable(control_seed):
        problems.append(problem("control_seed", "control_seed"))
    if problems:
        raise Refused(problems)
    dataset.threshold, dataset.control_rate, dataset.control_seed = threshold, control_rate, control_seed
    dataset.save(update_fields=["threshold", "control_rate", "control_seed"])


def set_explanation(item: Item, text: str) -> None:
    """The organizer's explanation of a training item's gold answer, written on the page
    (empty text: none)."""
    if not Item.objects.filter(pk=item.pk, dataset__pool_kind=Dataset.PoolKind.TRAINING).exists():
        raise Refused.of("explanation_of_real_item")
    if unstorable(text):
        raise Refused.of("unstorable/explanation_text")
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
    pool_items = Item.objects.filter(dataset__pool_of_id=round.dataset_id, dataset__pool_kind=Dataset.PoolKind.TRAINING,
                                     dataset__archived_at__isnull=True)
    if not pool_items.filter(pk=item.pk).exists():
        raise Refused.of("not_training_item")
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
            raise Refused.of("round_over")
        if round.answers.filter(item=item).exists():
            raise Refused.of("answered_already")
        stored = TrainingAnswer.objects.create(
            round=round, item=item, answer=answer,
            correctness=subtask.correctness(item.gold.payload, subtask.normalise(answer)),
        )
        # Only the serving pool's items count (a round begun on a pool archived since keeps its answers).
        scores = list(round.answers.filter(item__in=pool_items).values_list("correctness", flat=True))
        if len(scores) == pool_items.count():
            # fmean sums exactly: the score does not depend on the order the rows come in.
            round.score = statistics.fmean(scores)
            round.finished_at = timezone.now()
            round.save(update_fields=["score", "finished_at"])
            training_round_finished.send(TrainingRound, training_round=round, passed=passed(round, round.dataset))
    return stored


def allow_retry(dataset: Dataset, annotator: AbstractBaseUser) -> TrainingRound:
    """A fresh training round for an annotator whose latest round is finished."""
    with transaction.atomic():
        latest = (TrainingRound.objects.select_for_update()
                  .filter(dataset=dataset, annotator=annotator).order_by("-attempt").first())
        if latest is None:
            raise Refused.of("round_not_started", name=annotator.get_username())
        if latest.finished_at is None:
            raise Refused.of("round_in_progress", name=annotator.get_username())
        return TrainingRound.objects.create(dataset=dataset, annotator=annotator, attempt=latest.attempt + 1)


def release_from_training(dataset: Dataset, annotator: AbstractBaseUser, organizer: AbstractBaseUser | None) -> TrainingRound:
    """Let the annotator work on real items whatever their training score (recorded on their
    latest round, started if none); only an annotator with items of the dataset. ``organizer``:
    who released them (None: not known, e.g. from a command run without ``--by``)."""
    if not dataset.assignments.filter(annotator=annotator).exists():
        raise Refused.of("no_items_here", name=annotator.get_username())
    with transaction.atomic():
        latest = current_round(dataset, annotator)
        latest.released_at, latest.released_by = timezone.now(), organizer
        latest.save(update_fields=["released_at", "released_by"])
    return latest
