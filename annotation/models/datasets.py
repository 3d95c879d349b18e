"""The datasets and what belongs to an item: its gold, its place in annotators' queues, its
flags; and the record of what organizers deleted or archived."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.subtasks import get_subtask


def subtask_title(key: str) -> str:
    """The scorer's English title of subtask ``key``, in the user's language (the catalogue
    translates it)."""
    return gettext(get_subtask(key).title)


class Dataset(models.Model):
    class PoolKind(models.TextChoices):
        TRAINING = "training", _("training")
        CONTROL = "control", _("control")

    name = models.CharField(_("name"), max_length=100, unique=True)
    # A key of the scorer's registry (scoring.subtasks.SUBTASKS), checked by the import service:
    # the schema lists no keys, so a new subtask needs no migration.
    subtask = models.CharField(_("subtask"), max_length=20)
    source_filename = models.CharField(_("source file"), max_length=255)
    source_sha256 = models.CharField(_("source SHA-256"), max_length=64)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("created by")
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    frozen = models.BooleanField(_("frozen"), default=False, help_text=_("No more edits to answers."))
    gold_synthetic = models.BooleanField(
        _("synthetic gold"), default=False, help_text=_("Gold made for testing; never report a score.")
    )
    gold_revealed = models.BooleanField(
        _("gold revealed to adjudicators"), default=False
    )
    # Adjudicators may decide in the gold audit (annotation.datasets.auditing) once the gold
    # is revealed to them; organizers always may.
    adjudicators_audit_gold = models.BooleanField(
        _("adjudicators audit the gold"), default=False,
        help_text=_("Adjudicators to whom the gold is revealed may decide on the gold audit's items."),
    )
    # A training or control pool is a dataset of its own (items with gold) linked to the
    # dataset it serves, so that dataset's items, exports and agreement stay whole.
    pool_of = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="pools",
        verbose_name=_("pool of"),
    )
    pool_kind = models.CharField(_("pool kind"), max_length=10, choices=PoolKind.choices, blank=True)
    # Qualification: the least training-round score (and control accuracy) that lets an
    # annotator work; None: finishing the training round is enough.
    threshold = models.FloatField(_("qualification threshold"), null=True, blank=True)
    # One control item in `control_rate` positions of each queue (0: none); `control_seed`
    # makes the interleaving reproducible.
    control_rate = models.PositiveIntegerField(_("one control item in"), default=0)
    control_seed = models.CharField(_("control seed"), max_length=100, blank=True)
    auto_majority = models.BooleanField(
        _("settle majority answers automatically"),
        default=False,
        help_text=_("A disagreement with a majority answer is settled by it, without an adjudicator."),
    )
    adjudicators_see_names = models.BooleanField(
        _("adjudicators see annotators' names"),
        default=False,
        help_text=_("Otherwise the answers are shown as Annotator 1..K."),
    )
    # Archived (annotation.datasets.removing): kept with all its answers, but out of every
    # annotator's, adjudicator's and organizer's default list, of campaigns and of pools'
    # service; restorable. A dataset nothing depends on is deleted instead.
    archived_at = models.DateTimeField(_("archived"), null=True, blank=True)
    archived_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("archived by")
    )
    # The seeded sample annotators are given (scoring.sampling.draw_sample; None: every item),
    # its members marked by Item.sample_rank. Set before any item is assigned.
    sample_size = models.PositiveIntegerField(_("sample size"), null=True, blank=True)
    sample_seed = models.PositiveBigIntegerField(_("sample seed"), null=True, blank=True)
    sample_field = models.CharField(_("sample stratified by"), max_length=200, blank=True)
    # Routing (annotation.annotate.routing) instead of fixed queues: each item of the sample
    # goes to the next annotator who asks until it has `answers_per_item` answers, counting
    # open reservations; chosen before the first answer. Fixed queues (False) are the default.
    routing = models.BooleanField(_("routing"), default=False)
    answers_per_item = models.PositiveIntegerField(_("answers per item (k)"), null=True, blank=True)
    reservation_minutes = models.PositiveIntegerField(_("reservation (minutes)"), default=20)
    # The pilot: the first `pilot_size` items of the sample go to every annotator first, exempt
    # from k; the rest are served once the organizer opens them.
    pilot_size = models.PositiveIntegerField(_("pilot items"), default=0)
    pilot_open = models.BooleanField(_("the rest open after the pilot"), default=False)
    # At most this many items (positions, control items among them) per annotator; None: no limit.
    quota = models.PositiveIntegerField(_("items per annotator at most"), null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("dataset")
        verbose_name_plural = _("datasets")
        constraints = [
            models.CheckConstraint(
                condition=Q(pool_of__isnull=True, pool_kind="")
                | Q(pool_of__isnull=False, pool_kind__in=["training", "control"]),
                name="dataset_pool_kind_with_pool_of",
            ),
            # One serving pool per kind; archived pools are kept beside it.
            models.UniqueConstraint(
                fields=["pool_of", "pool_kind"], condition=Q(pool_of__isnull=False, archived_at__isnull=True),
                name="dataset_one_pool_per_kind",
            ),
            models.CheckConstraint(
                condition=Q(threshold__isnull=True) | Q(threshold__gte=0, threshold__lte=1),
                name="dataset_threshold_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=Q(control_rate=0) | Q(control_rate__gte=2), name="dataset_control_rate_zero_or_at_least_2"
            ),
            models.CheckConstraint(
                condition=Q(archived_at__isnull=True, archived_by__isnull=True) | Q(archived_at__isnull=False),
                name="dataset_archived_by_only_when_archived",
            ),
            models.CheckConstraint(
                condition=Q(sample_size__isnull=True, sample_seed__isnull=True, sample_field="")
                | Q(sample_size__isnull=False, sample_seed__isnull=False),
                name="dataset_sample_size_with_seed",
            ),
            models.CheckConstraint(
                condition=Q(routing=False) | Q(answers_per_item__gte=1), name="dataset_routing_with_k"
            ),
            models.CheckConstraint(condition=Q(reservation_minutes__gte=1), name="dataset_reservation_positive"),
            models.CheckConstraint(condition=Q(quota__isnull=True) | Q(quota__gte=1), name="dataset_quota_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def subtask_title(self) -> str:
        return subtask_title(self.subtask)


class Item(models.Model):
    # Indexed as the first column of the unique constraints below.
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="items", db_index=False, verbose_name=_("dataset"))
    external_id = models.CharField(_("id"), max_length=200)
    payload = models.JSONField(_("input record"))
    ordinal = models.PositiveIntegerField(_("position in the input file"))
    # A broken item an organizer took out (resolving a flag): it leaves every queue,
    # agreement, majority, adjudication, export and report, each of which lists it as withdrawn.
    withdrawn_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("withdrawn by")
    )
    withdrawal_reason = models.TextField(_("why it was withdrawn"), blank=True)
    # 1-based place in the dataset's sample, in the order of the sample's permutation (a pilot
    # is its first m); None: outside the sample, or the dataset has none.
    sample_rank = models.PositiveIntegerField(_("place in the sample"), null=True, blank=True)

    class Meta:
        ordering = ["dataset", "ordinal"]
        verbose_name = _("item")
        verbose_name_plural = _("items")
        constraints = [
            models.UniqueConstraint(fields=["dataset", "external_id"], name="item_unique_external_id"),
            models.UniqueConstraint(fields=["dataset", "ordinal"], name="item_unique_ordinal"),
            models.UniqueConstraint(fields=["dataset", "sample_rank"], name="item_unique_sample_rank"),
            models.CheckConstraint(
                condition=Q(withdrawn_at__isnull=True) | Q(withdrawn_by__isnull=False),
                name="item_withdrawn_by_someone",
            ),
        ]
        # The withdrawn items only (usually none): what the item page counts them from.
        indexes = [models.Index(fields=["id"], condition=Q(withdrawn_at__isnull=False), name="item_withdrawn")]

    def __str__(self) -> str:
        return self.external_id


class GoldAnswer(models.Model):
    """The answer key of one item. Organizers only (adjudicators once revealed)."""

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="gold", verbose_name=_("item"))
    payload = models.JSONField(_("gold line"))
    # When the line was imported: a partial gold file's missing lines may be added later
    # (annotation.datasets.importing.import_gold), never replaced.
    added_at = models.DateTimeField(_("added"), default=timezone.now)

    class Meta:
        verbose_name = _("gold answer")
        verbose_name_plural = _("gold answers")

    def __str__(self) -> str:
        return str(_("gold of %(item)s") % {"item": self.item})


class Assignment(models.Model):
    """One item in one annotator's queue; `position` is the annotator's own order."""

    # No index of their own: dataset and item are each the first column of a unique
    # constraint's index below, and the annotator's assignments are read with their dataset or
    # item. With one, PostgreSQL counted an annotator's queue by reading every assignment of the
    # dataset, and routing's items in progress read every assignment of the annotator for each
    # item (its statistics do not know a new annotator); and a routed save & next wrote two
    # more index entries (its new assignment, the answered one released).
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="assignments", db_index=False, verbose_name=_("dataset"))
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments", db_index=False, verbose_name=_("item"))
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments", db_index=False,
        verbose_name=_("annotator"),
    )
    position = models.PositiveIntegerField(_("position in the annotator's order"))
    # Skipped items come back at the end of the queue, in the order they were skipped,
    # while keeping their number in the annotator's order.
    skipped_at = models.DateTimeField(null=True, blank=True, verbose_name=_("skipped at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # Routed datasets only: the item is reserved for the annotator until then (None: no open
    # reservation); `reservation_lapsed`: a reservation of it expired before its answer came.
    reserved_until = models.DateTimeField(_("reserved until"), null=True, blank=True)
    reservation_lapsed = models.BooleanField(_("reservation lapsed"), default=False)

    class Meta:
        ordering = ["dataset", "annotator", "position"]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_unique_item_annotator"),
            models.UniqueConstraint(
                fields=["dataset", "annotator", "position"], name="assignment_unique_position"
            ),
            # Routing reserves an annotator one item at a time (next_item renews the one they
            # hold); in the schema, so that two of their requests at once cannot take two.
            models.UniqueConstraint(fields=["dataset", "annotator"], condition=Q(reserved_until__isnull=False),
                                    name="assignment_one_reservation"),
        ]
        # The open reservations only (few): what routing releases when they expire.
        indexes = [
            models.Index(fields=["dataset", "reserved_until"], condition=Q(reserved_until__isnull=False),
                         name="assignment_reserved"),
        ]

    def __str__(self) -> str:
        return f"{self.item} → {self.annotator}"


class Flag(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="flags", verbose_name=_("item"))
    raised_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="flags", verbose_name=_("raised by"))
    comment = models.TextField(_("comment"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    resolved_at = models.DateTimeField(null=True, blank=True, verbose_name=_("resolved at"))
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("resolved by")
    )
    resolution_note = models.TextField(_("resolution note"), blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("flag")
        verbose_name_plural = _("flags")

    def __str__(self) -> str:
        return str(_("flag on %(item)s") % {"item": self.item})


# What a removal counts of what goes with it (RemovalRecord.counts), in the order shown.
REMOVAL_COUNTS = {
    "items": _("items"),
    "gold": _("gold answers"),
    "assignments": _("assignments"),
    "flags": _("problem reports"),
    "pools": _("pools"),
    "model_submissions": _("model submissions"),
    "training_rounds": _("training rounds"),
    "campaigns": _("campaigns left"),
    "unanswered_control": _("control positions not yet answered, out of the queues"),
}


def counted(counts: dict[str, int]) -> list[tuple[str, int]]:
    """The non-zero counts of ``counts`` with their words, in REMOVAL_COUNTS' order."""
    return [(str(label), counts[key]) for key, label in REMOVAL_COUNTS.items() if counts.get(key)]


class RemovalRecord(models.Model):
    """One deletion, archiving or restoring by an organizer (annotation.datasets.removing): who,
    when, what, and what went with it. Kept when the dataset itself is deleted (``dataset``
    becomes null; ``dataset_name`` stays)."""

    class Kind(models.TextChoices):
        DATASET = "dataset", _("dataset")
        TRAINING = "training", _("training pool")
        CONTROL = "control", _("control pool")
        MODEL = "model", _("model submission")

    class Action(models.TextChoices):
        DELETED = "deleted", _("deleted")
        ARCHIVED = "archived", _("archived")
        RESTORED = "restored", _("restored")

    # The dataset the thing belonged to (itself, for a dataset): whose page lists the record.
    dataset = models.ForeignKey(Dataset, on_delete=models.SET_NULL, null=True, blank=True, related_name="removals", verbose_name=_("dataset"))
    dataset_name = models.CharField(_("dataset"), max_length=100)
    kind = models.CharField(_("what"), max_length=10, choices=Kind.choices)
    name = models.CharField(_("name"), max_length=100)
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    # What went with it: {"items": 12, "gold": 12, ...} (the keys of REMOVAL_COUNTS).
    counts = models.JSONField(_("what went with it"), default=dict)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                           related_name="+", verbose_name=_("by"))
    at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = _("removal record")
        verbose_name_plural = _("removal records")
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=["dataset", "training", "control", "model"]),
                                   name="removal_record_kind_valid"),
            models.CheckConstraint(condition=Q(action__in=["deleted", "archived", "restored"]),
                                   name="removal_record_action_valid"),
            # A model submission is deleted, never archived: nothing depends on it.
            models.CheckConstraint(condition=~Q(kind="model") | Q(action="deleted"),
                                   name="removal_record_model_only_deleted"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name}: {self.get_action_display()}"

    @property
    def what_went(self) -> list[tuple[str, int]]:
        return counted(self.counts)
