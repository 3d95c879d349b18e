"""The answers annotators give, and the history of their saves."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.datasets import Item


class Annotation(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SUBMITTED = "submitted", _("submitted")

    # Indexed as the first column of the unique constraint below.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="annotations", db_index=False, verbose_name=_("item"))
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotations", verbose_name=_("annotator")
    )
    answer = models.JSONField(_("answer fields"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    active_ms = models.PositiveBigIntegerField(_("active time (ms)"), default=0)
    # Optimistic concurrency: every save names the version it was based on.
    version = models.PositiveIntegerField(_("version"), default=1)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    submitted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("submitted at"))
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
        return str(_("%(item)s by %(annotator)s (%(status)s)") % {"item": self.item, "annotator": self.annotator, "status": self.get_status_display()})


class AnnotationRevision(models.Model):
    """Append-only history: one row per save of an annotation."""

    # Indexed as the first column of the unique constraint below (one index less to write per save).
    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="revisions", db_index=False, verbose_name=_("annotation"))
    version = models.PositiveIntegerField(verbose_name=_("version"))
    answer = models.JSONField(verbose_name=_("answer"))
    status = models.CharField(max_length=10, choices=Annotation.Status.choices, verbose_name=_("status"))
    active_ms = models.PositiveBigIntegerField(default=0, verbose_name=_("active ms"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

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
