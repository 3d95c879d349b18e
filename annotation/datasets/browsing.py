"""What organizers read of a dataset's items: the browser (search, state, order, pages; the
gold audit's states among them) and one item with everything it holds (answers and their
revisions, flags, the adjudication and its history, the gold).

A page of the browser is three queries whatever the size of the dataset: the count, the page's
ids in order and the page's items, each item's state worked out by correlated subqueries the
unique indexes of answers and assignments answer per item (the gold audit's "to decide" adds
the audit queue's reads: its entry rule is the scorer's)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce
from django.utils.translation import gettext_lazy as _

from annotation.adjudicate.selectors import item_case_status
from annotation.datasets.auditing import OPEN, audit_posteriors, audit_queue
from annotation.models import (
    Adjudication,
    AdjudicationRevision,
    Annotation,
    AnnotationRevision,
    Assignment,
    Dataset,
    Flag,
    GoldAnswer,
    GoldAuditDecision,
    Item,
    RoutedItem,
)

PAGE_SIZE = 50

# The states an item can be filtered by (?state=), with their words.
STATES = {
    "unanswered": _("unanswered"),
    "partly": _("partly answered"),
    "complete": _("complete"),
    "disagreement": _("disagreement"),
    "flagged": _("flagged"),
    "withdrawn": _("withdrawn"),
    "pilot": _("pilot"),
    # The gold audit's states (annotation.datasets.auditing).
    "audit_open": _("gold audit: to decide"),
    "audit_stands": _("gold audit: the gold stands"),
    "audit_corrected": _("gold audit: the gold is corrected"),
    "audit_withdrawn": _("gold audit: withdrawn from the audited gold"),
}

# The orders of the browser (?sort=): their words and the ordering they stand for.
SORTS = {
    "position": (_("input order"), ("ordinal",)),
    "id": (_("id"), ("external_id",)),
    "answers": (_("fewest answers first"), ("submitted", "ordinal")),
    "-answers": (_("most answers first"), ("-submitted", "ordinal")),
}


def _count(model, where: Q, distinct: str = "") -> Coalesce:
    """The number of ``model`` rows of the outer item matching ``where`` (of ``distinct``
    values where named), as a correlated subquery."""
    counted = Count(distinct, distinct=True) if distinct else Count("pk")
    rows = model.objects.filter(where, item=OuterRef("pk")).order_by().values("item").annotate(n=counted)
    return Coalesce(Subquery(rows.values("n"), output_field=IntegerField()), Value(0))


def browsed_items(dataset: Dataset) -> QuerySet[Item]:
    """The dataset's items with ``submitted``, ``assigned`` (a routed dataset: its k, the answers
    an item is routed to), ``distinct_answers``, ``flagged`` and ``pilot`` (a routed dataset's pilot item)."""
    submitted = Q(status=Annotation.Status.SUBMITTED)
    return Item.objects.filter(dataset=dataset).annotate(
        submitted=_count(Annotation, submitted),
        assigned=Case(When(dataset__routing=True, then=F("dataset__answers_per_item")), default=_count(Assignment, Q())),
        pilot=Exists(RoutedItem.objects.filter(item=OuterRef("pk"), pilot_rank__isnull=False)),
        distinct_answers=_count(Annotation, submitted, distinct="normalised_answer"),
        flagged=Exists(Flag.objects.filter(item=OuterRef("pk"))),
    )


def _in_state(items: QuerySet[Item], state: str, dataset: Dataset) -> QuerySet[Item]:
    present = items.filter(withdrawn_at__isnull=True)
    if state == "audit_open":
        # The entry rule is the scorer's item figure, which only Python knows: the queue's items.
        return items.filter(pk__in=[audited.pk for audited in audit_queue(dataset, audit_posteriors(dataset), state=OPEN)])
    if state.startswith("audit_"):
        latest = GoldAuditDecision.objects.filter(item=OuterRef("pk")).order_by("-decided_at", "-pk").values("kind")[:1]
        return items.annotate(audit_kind=Subquery(latest)).filter(audit_kind=state.removeprefix("audit_"))
    if state == "withdrawn":
        return items.filter(withdrawn_at__isnull=False)
    if state == "unanswered":
        return present.filter(submitted=0)
    if state == "partly":
        return present.filter(submitted__gt=0, submitted__lt=F("assigned"))
    if state == "complete":
        return present.filter(submitted__gt=0, submitted__gte=F("assigned"))
    if state == "disagreement":
        return present.filter(distinct_answers__gt=1)
    if state == "flagged":
        return present.filter(flagged=True)  # a flag that withdrew its item is settled: "withdrawn" lists it
    if state == "pilot":
        return items.filter(pilot=True)
    return items


@dataclass(frozen=True)
class Browse:
    """What the browser was asked: the text searched, the state, the order, the page."""

    query: str = ""
    state: str = ""
    sort: str = "position"
    page: str = "1"

    @classmethod
    def from_query(cls, data) -> Browse:
        """The request's parameters; an unknown state or order is none (the default)."""
        state, sort = data.get("state", ""), data.get("sort", "position")
        return cls(
            query=data.get("q", "").strip(),
            state=state if state in STATES else "",
            sort=sort if sort in SORTS else "position",
            page=data.get("page", "1"),
        )


def item_page(dataset: Dataset, browse: Browse) -> Page:
    """One page of the dataset's items: those whose id or input text holds ``browse.query``
    (case ignored), in ``browse.state``, in ``browse.sort`` order (a page number out of range:
    the last page)."""
    items = browsed_items(dataset)
    if browse.query:
        items = items.annotate(text=Cast("payload", TextField())).filter(
            Q(external_id__icontains=browse.query) | Q(text__icontains=browse.query)
        )
    ordered = _in_state(items, browse.state, dataset).order_by(*SORTS[browse.sort][1]).values_list("pk", flat=True)
    # The page's ids first, then the figures of those items only: selected with the order,
    # each item's counts were worked out for every item up to the page's end (a late page in
    # the order by answers: every item before it), not only for the page's own.
    page = Paginator(ordered, PAGE_SIZE).get_page(browse.page)
    shown = browsed_items(dataset).filter(pk__in=list(page.object_list)).only("pk", "external_id", "ordinal",
                                                                              "withdrawn_at")
    by_pk = {item.pk: item for item in shown}
    page.object_list = [by_pk[pk] for pk in page.object_list]
    return page


@dataclass
class ItemRecord:
    """Everything one item holds, for the organizer."""

    item: Item
    answers: list[Annotation]  # each with .revisions (prefetched) and .annotator
    flags: list[Flag]
    adjudication: Adjudication | None  # with .revisions (prefetched)
    gold: dict | None
    case_status: str | None  # open, stale, settled, or None: no case


def item_record(dataset: Dataset, item_pk: int) -> ItemRecord | None:
    """The item ``item_pk`` of ``dataset`` with its answers (drafts too) and their revisions,
    its flags, the adjudication and its history, and the gold; None: no such item. A fixed
    number of queries."""
    item = Item.objects.filter(pk=item_pk, dataset=dataset).first()
    if item is None:
        return None
    answers = list(
        Annotation.objects.filter(item=item)
        .select_related("annotator")
        .prefetch_related(Prefetch("revisions", queryset=AnnotationRevision.objects.order_by("version")))
        .order_by("created_at", "pk")
    )
    flags = list(Flag.objects.filter(item=item).select_related("raised_by", "resolved_by").order_by("created_at"))
    adjudication = (
        Adjudication.objects.filter(item=item)
        .select_related("adjudicator")
        .prefetch_related(
            Prefetch("revisions", queryset=AdjudicationRevision.objects.select_related("adjudicator").order_by("version"))
        )
        .first()
    )
    gold = GoldAnswer.objects.filter(item=item).values_list("payload", flat=True).first()
    status = item_case_status(item.pk)[0] if item.withdrawn_at is None else None
    return ItemRecord(item, answers, flags, adjudication, gold, status)
