"""Removing what an organizer uploaded by mistake: a dataset or a pool (a dataset serving
another), deleted while nothing depends on it, archived once it holds answers; and the one
record of every deletion, archiving and restoring (``RemovalRecord``: who, when, what, and
what went with it), which the dataset's page lists.

Nothing depends on a dataset while none of its items (nor its pools' items) has an answer, a
training answer or an adjudication: deleting it then loses no one's work. An archived dataset
keeps everything, but leaves the annotators', adjudicators' and organizers' default lists and
its campaigns (so their reports); an archived pool stops serving (training rounds, control
items not yet answered), so another can be imported. Both can be restored. ``removal``
reads what would go (the confirmation page shows it); ``delete``, ``archive`` and ``restore``
write, each in one transaction with the dataset's row locked, and refuse (Refused) what the
confirmation did not show: a deletion of a dataset that got answers meanwhile is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from annotation.core.errors import Refused
from annotation.core.problems import problem
from annotation.models import (
    Adjudication,
    Annotation,
    Assignment,
    Dataset,
    Flag,
    GoldAnswer,
    Item,
    ModelSubmission,
    RemovalRecord,
    TrainingAnswer,
    TrainingRound,
)
from annotation.models.datasets import counted
from scoring.problems import Problem


@dataclass(frozen=True)
class Removal:
    """What removing ``dataset`` would take: the work that depends on it (``answers``,
    ``training_answers``, ``adjudications``: any of them and it can only be archived), what a
    deletion takes with it (``counts``), the campaigns it leaves, and, for a control pool, the
    control positions not yet answered that leave the queues when it is archived."""

    dataset: Dataset
    answers: int
    training_answers: int
    adjudications: int
    counts: dict[str, int]
    campaigns: list[str]
    unanswered_control: int

    @property
    def kind(self) -> str:
        return self.dataset.pool_kind or RemovalRecord.Kind.DATASET

    @property
    def deletable(self) -> bool:
        return not (self.answers or self.training_answers or self.adjudications)

    @property
    def what_goes(self) -> list[tuple[str, int]]:
        """What a deletion takes with it, in words."""
        return counted(self.counts)

    @property
    def served(self) -> Dataset | None:
        """The dataset a pool serves (None: a dataset of its own)."""
        return self.dataset.pool_of


def _own_items(dataset: Dataset) -> Q:
    """Items of the dataset and of every pool serving it (a pool serves none)."""
    return Q(dataset=dataset) | Q(dataset__pool_of=dataset)


def _unanswered_control(pool: Dataset):
    """The control positions of a control pool's items whose annotator has not answered them."""
    answered = Annotation.objects.filter(item=OuterRef("item"), annotator=OuterRef("annotator"))
    return Assignment.objects.filter(item__dataset=pool).exclude(Exists(answered))


def removal(dataset: Dataset) -> Removal:
    """What removing the dataset (or pool) would take; a fixed number of counting queries."""
    items = Item.objects.filter(_own_items(dataset))
    of_items = {"item__in": items}
    pools = Dataset.objects.filter(pool_of=dataset)
    return Removal(
        dataset=dataset,
        answers=Annotation.objects.filter(**of_items).count(),
        training_answers=TrainingAnswer.objects.filter(**of_items).count(),
        adjudications=Adjudication.objects.filter(**of_items).count(),
        counts={
            "items": items.count(),
            "gold": GoldAnswer.objects.filter(**of_items).count(),
            "assignments": Assignment.objects.filter(Q(dataset=dataset) | Q(item__in=items)).count(),
            "flags": Flag.objects.filter(**of_items).count(),
            "pools": pools.count(),
            "model_submissions": ModelSubmission.objects.filter(dataset=dataset).count(),
            "training_rounds": TrainingRound.objects.filter(dataset=dataset).count(),
        },
        campaigns=list(dataset.campaigns.order_by("name").values_list("name", flat=True)),
        unanswered_control=(_unanswered_control(dataset).count()
                            if dataset.pool_kind == Dataset.PoolKind.CONTROL else 0),
    )


def removal_records(dataset: Dataset | None):
    """The records of the dataset (itself, its pools and model submissions), newest first;
    None: those of deleted datasets."""
    return RemovalRecord.objects.filter(dataset=dataset).select_related("by")


def record(*, dataset: Dataset, kind: str, name: str, action: str, by: AbstractBaseUser | None,
           counts: dict | None = None) -> RemovalRecord:
    """Record a deletion, archiving or restoring of ``name`` (of ``dataset``). For a dataset
    deleted, call it before the deletion: the record outlives it with its name."""
    return RemovalRecord.objects.create(
        dataset=dataset, dataset_name=dataset.name, kind=kind, name=name, action=action, by=by, counts=counts or {},
    )


def _locked(dataset: Dataset) -> Dataset:
    try:
        return Dataset.objects.select_for_update(of=("self",)).select_related("pool_of").get(pk=dataset.pk)
    except Dataset.DoesNotExist:
        raise Refused.of("deleted_meanwhile", name=dataset.name) from None


def _depends(plan: Removal) -> Problem:
    return problem("has_work", name=plan.dataset.name, answers=plan.answers, training=plan.training_answers,
                   adjudications=plan.adjudications)


def delete(dataset: Dataset, *, by: AbstractBaseUser | None) -> RemovalRecord:
    """Delete a dataset (with its items, gold, assignments, flags, pools, model submissions) or a
    pool, while nothing depends on it; recorded on the page of the dataset it served (a
    dataset's own record keeps its name)."""
    try:
        with transaction.atomic():
            dataset = _locked(dataset)
            plan = removal(dataset)
            if not plan.deletable:
                raise Refused([_depends(plan)])
            done = _record_of(plan, RemovalRecord.Action.DELETED, by, plan.counts)
            dataset.delete()
    except IntegrityError:
        # An answer saved between the count and the deletion holds on to its item.
        raise Refused.of("answered_while_deleted", name=dataset.name) from None
    return done


def delete_pool_to_replace(pool: Dataset, by: AbstractBaseUser | None) -> RemovalRecord:
    """Delete the pool a new one replaces: refused once someone has started it."""
    plan = removal(pool)
    if not plan.deletable:
        raise Refused.of("pool_started", "dataset", pool=str(RemovalRecord.Kind(pool.pool_kind).label), name=pool.name,
                         answers=plan.answers + plan.training_answers)
    return delete(pool, by=by)


def archive(dataset: Dataset, *, by: AbstractBaseUser | None) -> RemovalRecord:
    """Archive a dataset or a pool: kept whole, out of the default lists and campaigns (a
    pool: out of service, its control positions not yet answered leave the queues)."""
    with transaction.atomic():
        dataset = _locked(dataset)
        if dataset.archived_at is not None:
            raise Refused.of("archived_already", name=dataset.name)
        plan = removal(dataset)
        counts = {"campaigns": len(plan.campaigns), "unanswered_control": plan.unanswered_control}
        done = _record_of(plan, RemovalRecord.Action.ARCHIVED, by, counts)
        if dataset.pool_kind == Dataset.PoolKind.CONTROL:
            _unanswered_control(dataset).delete()
        dataset.campaigns.clear()
        dataset.archived_at, dataset.archived_by = timezone.now(), by
        dataset.save(update_fields=["archived_at", "archived_by"])
    return done


def restore(dataset: Dataset, *, by: AbstractBaseUser | None) -> RemovalRecord:
    """Bring an archived dataset or pool back (not into the campaigns it left); a pool only
    while its dataset has no other pool of its kind."""
    try:
        with transaction.atomic():
            dataset = _locked(dataset)
            if dataset.archived_at is None:
                raise Refused.of("not_archived", name=dataset.name)
            dataset.archived_at, dataset.archived_by = None, None
            dataset.save(update_fields=["archived_at", "archived_by"])
            return _record_of(removal(dataset), RemovalRecord.Action.RESTORED, by, {})
    except IntegrityError:
        raise Refused.of("pool_of_kind_exists", name=dataset.pool_of.name,
                         pool=str(RemovalRecord.Kind(dataset.pool_kind).label)) from None


def _record_of(plan: Removal, action: str, by: AbstractBaseUser | None, counts: dict) -> RemovalRecord:
    dataset = plan.dataset
    owner = plan.served or dataset
    return record(dataset=owner, kind=plan.kind, name=dataset.name, action=action, by=by, counts=counts)
