"""The gold audit: the items whose annotators agree against the gold (reads), and the
decisions on them (writes: the one place gold changes).

An item enters a dataset's (or a training or control pool's) audit queue when more than half
of its submitted answers, and at least two, are one answer (equal after the scorer's
normaliser) that is not correct by the original gold (the subtask's item figure below 1), or,
given the posteriors of an answer model (Dawid–Skene), when the posterior of an answer not
correct by the gold is at least ``POSTERIOR_THRESHOLD``. Items with a decision stay listed.

A decision (``decide``): the gold stands (a note), the gold is corrected (a new
``GoldVersion``, the old ones kept), or the item is withdrawn from the audited gold. The
original gold stays the benchmark's, which models are scored on; the latest decision of each
item makes its audited gold (``audited_gold``), what the report scores beside it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max, Q

from annotation.adjudicate.services import may_adjudicate
from annotation.answers.counted import counted_answers, counted_people
from annotation.answers.normalised import normalised_answer
from annotation.core.errors import Refused
from annotation.core.problems import problem
from annotation.core.roles import ADJUDICATOR, ORGANIZER, has_role
from annotation.core.storable import unstorable
from annotation.models import (
    Annotation,
    Dataset,
    Flag,
    GoldAnswer,
    GoldAuditDecision,
    GoldVersion,
    Item,
    TrainingAnswer,
)
from scoring.dawid_skene import answer_posteriors, offered
from scoring.reliability import AnswerTable
from scoring.subtasks import Subtask, get_subtask
from scoring.validation import schema_problems, validator, without_id

POSTERIOR_THRESHOLD = 0.95

OPEN = "open"
# The states of an audited item: open (no decision yet), or its latest decision's kind.
STATES = (OPEN, GoldAuditDecision.Kind.STANDS, GoldAuditDecision.Kind.CORRECTED, GoldAuditDecision.Kind.WITHDRAWN)

# Why an item entered the queue.
BY_ANSWERS = "answers"
BY_POSTERIOR = "posterior"


@dataclass(frozen=True)
class Entry:
    """Why one item is in the audit queue: the answer that stands against the gold."""

    answer: str  # the normalised answer (canonical JSON) agreed on against the gold
    agreeing: int  # the submitted answers equal to it
    submitted: int  # the item's submitted answers
    by: str  # BY_ANSWERS or BY_POSTERIOR
    posterior: float | None = None  # the answer model's posterior of ``answer``, when given

    @property
    def share(self) -> float:
        return self.agreeing / self.submitted if self.submitted else 0.0

    @property
    def answer_fields(self) -> dict:
        return json.loads(self.answer)


def is_correct(subtask: Subtask, gold: dict, answer_text: str) -> bool:
    """Whether the normalised answer ``answer_text`` is exactly right by the gold line."""
    return subtask.correctness(gold, json.loads(answer_text)) == 1.0


def queue_entry(subtask: Subtask, gold: dict, answers: list[str],
                posteriors: dict[str, float] | None = None) -> Entry | None:
    """Whether an item with the gold line ``gold`` and the submitted normalised answers
    ``answers`` enters the audit queue, and why; ``posteriors``: an answer model's probability
    of each candidate answer (normalised text -> posterior; commas: the product over the
    markers), or None where the model does not apply."""
    counts = Counter(answers)
    if counts:
        text, agreeing = counts.most_common(1)[0]
        if agreeing >= 2 and 2 * agreeing > len(answers) and not is_correct(subtask, gold, text):
            return Entry(text, agreeing, len(answers), BY_ANSWERS, (posteriors or {}).get(text))
    for text, posterior in sorted((posteriors or {}).items(), key=lambda pair: (-pair[1], pair[0])):
        if posterior >= POSTERIOR_THRESHOLD and not is_correct(subtask, gold, text):
            return Entry(text, counts[text], len(answers), BY_POSTERIOR, posterior)
    return None


def governing_dataset(dataset: Dataset) -> Dataset:
    """The dataset whose settings govern the audit of ``dataset``: a pool's, the one it serves."""
    return dataset.pool_of if dataset.pool_of_id else dataset


def may_audit(user: User, dataset: Dataset) -> bool:
    """Organizers; adjudicators where the organizer lets them audit the gold and it is revealed
    to them (never in a dataset where they annotate)."""
    if has_role(user, ORGANIZER):
        return True
    served = governing_dataset(dataset)
    return (served.adjudicators_audit_gold and served.gold_revealed and has_role(user, ADJUDICATOR)
            and may_adjudicate(user, served.pk))


def answers_by_annotator(dataset: Dataset, item_pks: list[int] | None = None) -> dict[int, dict[int, str]]:
    """Item pk -> annotator pk -> their submitted normalised answer, for the dataset's items (or
    ``item_pks``): annotators' answers (a dataset, a control pool), or each annotator's latest
    training answer (a training pool); only of the annotators who count (annotation.answers.counted)."""
    answers: dict[int, dict[int, str]] = {}
    if dataset.pool_kind == Dataset.PoolKind.TRAINING:
        training = counted_people(TrainingAnswer.objects.filter(item__dataset=dataset), "round__annotator")
        if item_pks is not None:
            training = training.filter(item_id__in=item_pks)
        rows = (training.order_by("round__attempt", "created_at")
                .values_list("item_id", "round__annotator_id", "answer"))
        for item_id, annotator_id, answer in rows.iterator(chunk_size=5000):
            answers.setdefault(item_id, {})[annotator_id] = normalised_answer(dataset.subtask, answer)
        return answers
    submitted = counted_answers(Annotation.objects.filter(item__dataset=dataset))
    if item_pks is not None:
        submitted = submitted.filter(item_id__in=item_pks)
    rows = submitted.values_list("item_id", "annotator_id", "normalised_answer")
    for item_id, annotator_id, text in rows.iterator(chunk_size=5000):
        answers.setdefault(item_id, {})[annotator_id] = text
    return answers


def submitted_answers(dataset: Dataset, item_pks: list[int] | None = None) -> dict[int, list[str]]:
    """Item pk -> the submitted normalised answers of the dataset's items (or of ``item_pks``),
    one an annotator (``answers_by_annotator``)."""
    return {item_id: list(by_annotator.values())
            for item_id, by_annotator in answers_by_annotator(dataset, item_pks).items()}


def answer_model_posteriors(dataset: Dataset) -> dict[str, dict[str, float]] | None:
    """What ``audit_queue`` takes as ``posteriors``: item id -> normalised answer -> its
    Dawid–Skene posterior (commas: the product over the markers), the model fitted without gold
    to every submitted answer of the dataset (or pool), one annotator a file. Only the answers
    whose classes differ from the gold's (``ItemPosteriors.against``'s candidates) and that make
    an answer (a NIEPOPRAWNE label without a majority correction makes none) are given. None
    where the subtask does not offer Dawid–Skene (numerals, discourse: no shared classes)."""
    subtask = get_subtask(dataset.subtask)
    if not offered(subtask):
        return None
    answers = answers_by_annotator(dataset)
    rows = (GoldAnswer.objects.filter(item__dataset=dataset, item__withdrawn_at__isnull=True, item_id__in=list(answers))
            .order_by("item__ordinal").values_list("item_id", "item__payload", "payload"))
    items, golds, files = [], {}, {}
    for pk, payload, gold in rows.iterator(chunk_size=5000):
        items.append(payload)
        golds[payload["id"]] = (payload, subtask.normalise(subtask.gold_answer_fields(gold)))
        for annotator_id, text in answers[pk].items():
            files.setdefault(annotator_id, {})[payload["id"]] = json.loads(text)
    fitted = answer_posteriors(dataset.subtask, AnswerTable(items, [files[annotator] for annotator in sorted(files)]))
    posteriors: dict[str, dict[str, float]] = {}
    for item_id, item_posteriors in fitted.items():
        payload, gold_fields = golds[item_id]
        gold_classes = tuple(subtask.dawid_skene_units(gold_fields, payload))
        posteriors[item_id] = {normalised_answer(dataset.subtask, candidate.answer): candidate.posterior
                               for candidate in item_posteriors.candidates
                               if candidate.answer is not None and candidate.classes != gold_classes}
    return posteriors


@dataclass
class AuditedItem:
    """One item of the audit queue."""

    pk: int
    external_id: str
    ordinal: int
    gold: dict  # the original gold line
    answers: list[str]  # submitted normalised answers
    entry: Entry | None  # None: decided once, though the answers no longer stand against the gold
    decision: GoldAuditDecision | None = None  # the latest
    state: str = OPEN
    current_gold: dict = field(default_factory=dict)  # the gold line in force
    # Filled for the page's items only (audit_details).
    distinct_answers: list[tuple[dict, int]] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    history: list[GoldAuditDecision] = field(default_factory=list)
    versions: list[GoldVersion] = field(default_factory=list)
    payload: dict | None = None


def queue_record(audited: AuditedItem) -> dict:
    """One item of the queue as the API and the command give it."""
    entry, decision = audited.entry, audited.decision
    return {
        "id": audited.external_id,
        "state": audited.state,
        "submitted": len(audited.answers),
        "agreeing": entry.agreeing if entry else None,
        "share": entry.share if entry else None,
        "entered_by": entry.by if entry else None,
        "posterior": entry.posterior if entry else None,
        "answer": entry.answer_fields if entry else None,
        "gold": audited.gold,
        "gold_in_force": audited.current_gold,
        "decision": None if decision is None else decision_record(decision),
    }


def decision_record(decision: GoldAuditDecision) -> dict:
    """One decision as the API gives it."""
    return {"kind": decision.kind, "note": decision.note, "by": decision.decided_by.get_username(),
            "at": decision.decided_at.isoformat(),
            "gold_version": decision.gold_version.version if decision.gold_version else None}


def latest_decisions(dataset: Dataset) -> dict[int, GoldAuditDecision]:
    """Item pk -> its latest audit decision (with its gold version), for the dataset's items."""
    decisions = GoldAuditDecision.objects.filter(item__dataset=dataset).select_related("gold_version", "decided_by")
    latest: dict[int, GoldAuditDecision] = {}
    for decision in decisions.order_by("decided_at", "pk"):
        latest[decision.item_id] = decision
    return latest


def audit_queue(dataset: Dataset, posteriors: dict[str, dict[str, float]] | None = None,
                state: str = "") -> list[AuditedItem]:
    """The dataset's (or pool's) audit queue, most unanimous first (the share of answers
    agreeing against the gold, then their number, then input order): the items that enter
    (``queue_entry``; ``posteriors``: item id -> normalised answer -> posterior) and the items
    decided before; ``state`` keeps only those in it. Four queries whatever the size."""
    subtask = get_subtask(dataset.subtask)
    answers = submitted_answers(dataset)
    rows = GoldAnswer.objects.filter(item__dataset=dataset, item__withdrawn_at__isnull=True).values_list(
        "item_id", "item__external_id", "item__ordinal", "payload")
    decisions = latest_decisions(dataset)
    versions = latest_versions(dataset)
    queue = []
    for pk, external_id, ordinal, gold in rows.iterator(chunk_size=5000):
        item_answers = answers.get(pk, [])
        entry = queue_entry(subtask, gold, item_answers, None if posteriors is None else posteriors.get(external_id))
        decision = decisions.get(pk)
        if entry is None and decision is None:
            continue
        queue.append(AuditedItem(pk, external_id, ordinal, gold, item_answers, entry, decision,
                                 decision.kind if decision else OPEN,
                                 versions[pk].payload if pk in versions else gold))
    if state:
        queue = [audited for audited in queue if audited.state == state]
    queue.sort(key=lambda audited: (-(audited.entry.share if audited.entry else 0),
                                    -(audited.entry.agreeing if audited.entry else 0), audited.ordinal))
    return queue


def latest_versions(dataset: Dataset) -> dict[int, GoldVersion]:
    """Item pk -> its latest gold version, for the dataset's corrected items."""
    versions = GoldVersion.objects.filter(item__dataset=dataset)
    return {version.item_id: version for version in versions.order_by("version")}


def audit_details(page: list[AuditedItem]) -> list[AuditedItem]:
    """``page`` with what its page shows: each distinct answer and its count, the flags, the
    history of decisions and gold versions, the input. Four queries whatever the page."""
    pks = [audited.pk for audited in page]
    flags: dict[int, list[Flag]] = {}
    for flag in Flag.objects.filter(item_id__in=pks).select_related("raised_by").order_by("created_at"):
        flags.setdefault(flag.item_id, []).append(flag)
    history: dict[int, list[GoldAuditDecision]] = {}
    for decision in GoldAuditDecision.objects.filter(item_id__in=pks).select_related(
            "decided_by", "gold_version").order_by("decided_at", "pk"):
        history.setdefault(decision.item_id, []).append(decision)
    versions: dict[int, list[GoldVersion]] = {}
    for version in GoldVersion.objects.filter(item_id__in=pks).select_related("author").order_by("version"):
        versions.setdefault(version.item_id, []).append(version)
    payloads = dict(Item.objects.filter(pk__in=pks).values_list("pk", "payload"))
    for audited in page:
        audited.distinct_answers = [(json.loads(text), count) for text, count in Counter(audited.answers).most_common()]
        audited.flags = flags.get(audited.pk, [])
        audited.history = history.get(audited.pk, [])
        audited.versions = versions.get(audited.pk, [])
        audited.payload = payloads.get(audited.pk)
    return page


@dataclass(frozen=True)
class AuditedGold:
    """A dataset's audited gold: the gold line in force per item id (the original where no
    decision changed it), the withdrawn items left out, and the counts of the audit."""

    lines: dict[str, dict]  # item id -> gold line in force (withdrawn items left out)
    audited: int  # items with a decision
    corrected: int  # items whose decision in force is a correction
    withdrawn: int  # items withdrawn from the audited gold

    @property
    def changed(self) -> bool:
        return bool(self.corrected or self.withdrawn)


@dataclass(frozen=True)
class Override:
    """How the audit's decision in force changes an item's gold."""

    external_id: str
    kind: str  # the latest decision's
    corrected: dict | None  # the latest gold version, None: never corrected

    def gold(self, original: dict) -> dict | None:
        """The item's audited gold line given its ``original``; None: withdrawn from it."""
        if self.kind == GoldAuditDecision.Kind.WITHDRAWN:
            return None
        return self.corrected if self.corrected is not None else original


def audit_overrides(items: Q) -> dict[int, Override]:
    """Item pk -> how the audit's decision in force changes its gold, for the decided items
    that ``items`` (a condition on ``item``) selects. Two queries."""
    latest: dict[int, tuple[str, str]] = {}
    decisions = GoldAuditDecision.objects.filter(items).order_by("decided_at", "pk")
    for item_id, external_id, kind in decisions.values_list("item_id", "item__external_id", "kind"):
        latest[item_id] = (external_id, kind)
    versions = dict(GoldVersion.objects.filter(items, item_id__in=list(latest)).order_by("version")
                    .values_list("item_id", "payload")) if latest else {}
    return {item_id: Override(external_id, kind, versions.get(item_id)) for item_id, (external_id, kind) in latest.items()}


def audited_gold(dataset: Dataset, gold: list[dict]) -> AuditedGold:
    """The audited gold of ``dataset`` made from its original gold lines ``gold``: each item's
    latest decision applied (a correction: the latest gold version; withdrawn: left out)."""
    by_id = {record["id"]: record for record in gold}
    overrides = audit_overrides(Q(item__dataset=dataset)).values() if by_id else []
    counts = Counter(override.kind for override in overrides)
    for override in overrides:
        if override.external_id in by_id:
            audited = override.gold(by_id[override.external_id])
            if audited is None:
                del by_id[override.external_id]
            else:
                by_id[override.external_id] = audited
    return AuditedGold(by_id, sum(counts.values()), counts[GoldAuditDecision.Kind.CORRECTED],
                       counts[GoldAuditDecision.Kind.WITHDRAWN])


def gold_line_problems(subtask: Subtask, item: Item, gold: object) -> list:
    """What is wrong with ``gold`` as a corrected gold line of ``item``: the gold schema, the
    item's own id, the scorer's check against the item, storability."""
    if not isinstance(gold, dict):
        return [problem("gold_line", "gold")]
    if unstorable(gold):
        return [problem("unstorable/gold", "gold")]
    found = schema_problems(validator(subtask.key, "gold"), gold)
    if gold.get("id") != item.external_id:
        found.append(problem("gold_id", "gold", id=item.external_id))
    return found or subtask.check_answer(without_id(gold), item.payload)


def decide(*, item: Item, by: User, kind: str, note: str, gold: object = None) -> GoldAuditDecision:
    """Record a decision of the gold audit on ``item``: the gold stands, is corrected to the
    gold line ``gold`` (a new version; the old ones kept), or the item is withdrawn from the
    audited gold. Refused (nothing changed): no note, an item not in the queue, a correction
    that is no valid gold line of the item or equal to the gold in force."""
    dataset = item.dataset
    subtask = get_subtask(dataset.subtask)
    note = note.strip()
    if kind not in GoldAuditDecision.Kind.values:
        raise Refused.of("audit_decision", "kind", kinds=", ".join(GoldAuditDecision.Kind.values))
    if not note:
        raise Refused.of("required/audit_note", "note")
    if unstorable(note):
        raise Refused.of("unstorable/note", "note")
    if kind == GoldAuditDecision.Kind.CORRECTED:
        found = gold_line_problems(subtask, item, gold)
        if found:
            raise Refused(found)
    with transaction.atomic():
        # The item's row serialises decisions on it, so two corrections never take one version.
        locked = Item.objects.select_for_update().get(pk=item.pk)
        original = GoldAnswer.objects.filter(item=locked).first()
        if original is None or locked.withdrawn_at is not None:
            raise Refused.of("not_in_audit", "item", id=item.external_id)
        decided = GoldAuditDecision.objects.filter(item=locked).exists()
        if not decided and queue_entry(subtask, original.payload, submitted_answers(dataset, [locked.pk]).get(locked.pk, [])) is None:
            raise Refused.of("not_in_audit", "item", id=item.external_id)
        version = None
        if kind == GoldAuditDecision.Kind.CORRECTED:
            latest = GoldVersion.objects.filter(item=locked).aggregate(Max("version"))["version__max"]
            current = GoldVersion.objects.get(item=locked, version=latest).payload if latest else original.payload
            if gold == current:
                raise Refused.of("gold_unchanged", "gold")
            version = GoldVersion.objects.create(item=locked, version=(latest or 1) + 1, payload=gold,
                                                 reason=note, author=by)
        return GoldAuditDecision.objects.create(item=locked, kind=kind, note=note, gold_version=version, decided_by=by)


def export_decisions(dataset: Dataset) -> list[dict]:
    """Every decision of the dataset's audit (and its pools'), in time order, for the
    benchmark's maintainers: one record each with the item, the original and the decided gold,
    the reason, who and when."""
    datasets = [dataset, *Dataset.objects.filter(pool_of=dataset).order_by("pool_kind", "pk")]
    records = []
    for source in datasets:
        decisions = (GoldAuditDecision.objects.filter(item__dataset=source)
                     .select_related("item", "item__gold", "gold_version", "decided_by").order_by("decided_at", "pk"))
        for decision in decisions:
            records.append({
                "dataset": source.name,
                "pool": source.pool_kind or None,
                "id": decision.item.external_id,
                "decision": decision.kind,
                "reason": decision.note,
                "original_gold": decision.item.gold.payload,
                "gold": decision.gold_version.payload if decision.gold_version else None,
                "gold_version": decision.gold_version.version if decision.gold_version else None,
                "by": decision.decided_by.get_username(),
                "at": decision.decided_at.isoformat(),
            })
    return records
