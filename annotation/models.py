from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.subtasks import SUBTASK_KEYS, get_subtask

SUBTASK_CHOICES = [(key, key) for key in SUBTASK_KEYS]


def subtask_title(key: str) -> str:
    """The scorer's English title of subtask ``key``, in the user's language (the catalogue
    translates it)."""
    return gettext(get_subtask(key).title)


class Dataset(models.Model):
    class PoolKind(models.TextChoices):
        TRAINING = "training", _("training")
        CONTROL = "control", _("control")

    name = models.CharField(_("name"), max_length=100, unique=True)
    subtask = models.CharField(_("subtask"), max_length=20, choices=SUBTASK_CHOICES)
    source_filename = models.CharField(_("source file"), max_length=255)
    source_sha256 = models.CharField(_("source SHA-256"), max_length=64)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    frozen = models.BooleanField(_("frozen"), default=False, help_text=_("No more edits to answers."))
    gold_synthetic = models.BooleanField(
        _("synthetic gold"), default=False, help_text=_("Gold made for testing; never report a score.")
    )
    gold_revealed = models.BooleanField(
        _("gold revealed to adjudicators"), default=False
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

    class Meta:
        ordering = ["name"]
        verbose_name = _("dataset")
        verbose_name_plural = _("datasets")
        constraints = [
            models.CheckConstraint(
                condition=Q(subtask__in=SUBTASK_KEYS), name="dataset_subtask_known"
            ),
            models.CheckConstraint(
                condition=Q(pool_of__isnull=True, pool_kind="")
                | Q(pool_of__isnull=False, pool_kind__in=["training", "control"]),
                name="dataset_pool_kind_with_pool_of",
            ),
            models.UniqueConstraint(
                fields=["pool_of", "pool_kind"], condition=Q(pool_of__isnull=False), name="dataset_one_pool_per_kind"
            ),
            models.CheckConstraint(
                condition=Q(threshold__isnull=True) | Q(threshold__gte=0, threshold__lte=1),
                name="dataset_threshold_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=Q(control_rate=0) | Q(control_rate__gte=2), name="dataset_control_rate_zero_or_at_least_2"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def subtask_title(self) -> str:
        return subtask_title(self.subtask)


class Item(models.Model):
    # Indexed as the first column of the unique constraints below.
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="items", db_index=False)
    external_id = models.CharField(_("id"), max_length=200)
    payload = models.JSONField(_("input record"))
    ordinal = models.PositiveIntegerField(_("position in the input file"))
    # A broken item an organizer took out (resolving a flag): it leaves every queue,
    # agreement, majority, adjudication, export and report, each of which lists it as withdrawn.
    withdrawn_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    withdrawal_reason = models.TextField(_("why it was withdrawn"), blank=True)

    class Meta:
        ordering = ["dataset", "ordinal"]
        verbose_name = _("item")
        verbose_name_plural = _("items")
        constraints = [
            models.UniqueConstraint(fields=["dataset", "external_id"], name="item_unique_external_id"),
            models.UniqueConstraint(fields=["dataset", "ordinal"], name="item_unique_ordinal"),
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

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="gold")
    payload = models.JSONField(_("gold line"))

    class Meta:
        verbose_name = _("gold answer")
        verbose_name_plural = _("gold answers")

    def __str__(self) -> str:
        return f"gold {self.item}"


class Assignment(models.Model):
    """One item in one annotator's queue; `position` is the annotator's own order."""

    # No index of their own for dataset and item: each is the first column of a unique
    # constraint's index below. With one, PostgreSQL counted an annotator's queue by reading
    # every assignment of the dataset (its statistics do not know a new annotator).
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    position = models.PositiveIntegerField(_("position in the annotator's order"))
    # Skipped items come back at the end of the queue, in the order they were skipped,
    # while keeping their number in the annotator's order.
    skipped_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "annotator", "position"]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_unique_item_annotator"),
            models.UniqueConstraint(
                fields=["dataset", "annotator", "position"], name="assignment_unique_position"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item} → {self.annotator}"


class Annotation(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SUBMITTED = "submitted", _("submitted")

    # Indexed as the first column of the unique constraint below.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="annotations", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotations"
    )
    answer = models.JSONField(_("answer fields"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    active_ms = models.PositiveBigIntegerField(_("active time (ms)"), default=0)
    # Optimistic concurrency: every save names the version it was based on.
    version = models.PositiveIntegerField(_("version"), default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    # The submitted answer after the subtask's normaliser, as canonical JSON ("" for a draft):
    # two answers disagree when these differ, which the database can tell without Python.
    normalised_answer = models.TextField(_("normalised answer"), blank=True, default="")
    # What the save learned about the answer beyond its fields, e.g. "confirmed_unknown_words":
    # the words of a numerals answer Morfeusz does not know that the annotator saved anyway.
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)

    class Meta:
        verbose_name = _("annotation")
        verbose_name_plural = _("annotations")
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="annotation_unique_item_annotator"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "submitted"]), name="annotation_status_valid"
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="annotation_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.item} by {self.annotator} ({self.status})"


class AnnotationRevision(models.Model):
    """Append-only history: one row per save of an annotation."""

    # Indexed as the first column of the unique constraint below (one index less to write per save).
    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="revisions", db_index=False)
    version = models.PositiveIntegerField()
    answer = models.JSONField()
    status = models.CharField(max_length=10, choices=Annotation.Status.choices)
    active_ms = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["annotation", "version"]
        verbose_name = _("annotation revision")
        verbose_name_plural = _("annotation revisions")
        constraints = [
            models.UniqueConstraint(fields=["annotation", "version"], name="revision_unique_version"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "submitted"]), name="revision_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.annotation} v{self.version}"


class Flag(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="flags")
    raised_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="flags")
    comment = models.TextField(_("comment"))
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolution_note = models.TextField(_("resolution note"), blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("flag")
        verbose_name_plural = _("flags")

    def __str__(self) -> str:
        return f"flag on {self.item}"


class TrainingRound(models.Model):
    """One try of an annotator at a dataset's training round (the items of its training pool).

    Finished when every training item has an answer; ``score`` is then the mean correctness.
    The latest round decides: finished at or above the dataset's threshold (or with no
    threshold), or released by an organizer, lets the annotator work on real items.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="training_rounds")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="training_rounds"
    )
    attempt = models.PositiveIntegerField(_("try"))
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    score = models.FloatField(_("score"), null=True, blank=True)
    released_at = models.DateTimeField(null=True, blank=True)
    released_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["dataset", "annotator", "attempt"]
        verbose_name = _("training round")
        verbose_name_plural = _("training rounds")
        constraints = [
            models.UniqueConstraint(fields=["dataset", "annotator", "attempt"], name="training_round_unique_attempt"),
            models.CheckConstraint(condition=Q(attempt__gte=1), name="training_round_attempt_positive"),
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True, score__isnull=True)
                | Q(finished_at__isnull=False, score__gte=0, score__lte=1),
                name="training_round_score_when_finished",
            ),
        ]

    def __str__(self) -> str:
        return f"training {self.dataset} {self.annotator} #{self.attempt}"


class TrainingAnswer(models.Model):
    """An answer to a training item: never an Annotation, so it counts nowhere else."""

    round = models.ForeignKey(TrainingRound, on_delete=models.CASCADE, related_name="answers")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="training_answers")
    answer = models.JSONField(_("answer fields"))
    correctness = models.FloatField(_("correctness"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "created_at"]
        verbose_name = _("training answer")
        verbose_name_plural = _("training answers")
        constraints = [
            models.UniqueConstraint(fields=["round", "item"], name="training_answer_once_per_round"),
            models.CheckConstraint(condition=Q(correctness__gte=0, correctness__lte=1), name="training_answer_correctness_unit"),
        ]


class Explanation(models.Model):
    """The organizer's explanation of a training item's gold answer, shown with the feedback."""

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="explanation")
    text = models.TextField(_("explanation"))

    class Meta:
        verbose_name = _("explanation")
        verbose_name_plural = _("explanations")
class Adjudication(models.Model):
    """The settled answer of one item: an annotator's answer taken, the majority, or edited.

    Stale when a submitted answer of the item changed after ``decided_at`` (the item is then
    back in the adjudication queue). Every decision appends an AdjudicationRevision.
    """

    class Source(models.TextChoices):
        ANNOTATION = "annotation", _("an annotator's answer")
        MAJORITY = "majority", _("the majority answer")
        EDITED = "edited", _("edited by the adjudicator")

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="adjudication")
    answer = models.JSONField(_("final answer fields"))
    source = models.CharField(_("source"), max_length=12, choices=Source.choices)
    # The annotation taken (source "annotation"); its version at the time of the decision.
    source_annotation = models.ForeignKey(
        Annotation, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="adjudications"
    )
    note = models.TextField(_("note"), blank=True)
    # {annotation id: version} of the submitted answers the decision saw: what changed since.
    seen_versions = models.JSONField(default=dict)
    version = models.PositiveIntegerField(_("version"), default=1)
    decided_at = models.DateTimeField(_("decided"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("adjudication")
        verbose_name_plural = _("adjudications")
        constraints = [
            models.CheckConstraint(
                condition=Q(source__in=["annotation", "majority", "edited"]), name="adjudication_source_valid"
            ),
            # Only the majority settles an item without an adjudicator (the automatic setting).
            models.CheckConstraint(
                condition=Q(adjudicator__isnull=False) | Q(source="majority"),
                name="adjudication_adjudicator_unless_majority",
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="adjudication_version_positive"),
        ]

    def __str__(self) -> str:
        return f"adjudication of {self.item} ({self.source})"


class AdjudicationRevision(models.Model):
    """Append-only history: one row per decision on an item."""

    adjudication = models.ForeignKey(Adjudication, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    answer = models.JSONField()
    source = models.CharField(max_length=12, choices=Adjudication.Source.choices)
    source_annotation = models.ForeignKey(
        Annotation, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    note = models.TextField(blank=True)
    seen_versions = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["adjudication", "version"]
        verbose_name = _("adjudication revision")
        verbose_name_plural = _("adjudication revisions")
        constraints = [
            models.UniqueConstraint(fields=["adjudication", "version"], name="adjudication_revision_unique_version"),
        ]

    def __str__(self) -> str:
        return f"{self.adjudication} v{self.version}"


class AdjudicationClaim(models.Model):
    """An adjudicator working on an item: nobody else gets it until ``expires_at``."""

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="adjudication_claim")
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = _("adjudication claim")
        verbose_name_plural = _("adjudication claims")

    def __str__(self) -> str:
        return f"{self.item} claimed by {self.adjudicator}"


class ModelSubmission(models.Model):
    """A model's answers to a dataset, uploaded by an organizer to be reported beside the
    human sources: a whole submission file, valid as `python -m scoring validate --inputs`."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="model_submissions")
    name = models.CharField(_("model name"), max_length=100)
    filename = models.CharField(_("file"), max_length=255)
    data = models.BinaryField(_("submission file"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(_("uploaded"), auto_now_add=True)

    class Meta:
        ordering = ["dataset", "name"]
        verbose_name = _("model submission")
        verbose_name_plural = _("model submissions")
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="model_submission_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="model_submission_named"),
        ]

    def __str__(self) -> str:
        return f"{self.name} on {self.dataset}"


class Campaign(models.Model):
    """Datasets reported together, at most one per subtask (e.g. "test-A"): the campaign table."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    datasets = models.ManyToManyField(Dataset, related_name="campaigns", verbose_name=_("datasets"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")

    def __str__(self) -> str:
        return self.name
