"""The settled answers of items, the history of the decisions, and the adjudicators' claims."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.answers import Annotation
from annotation.models.datasets import Item


class Adjudication(models.Model):
    """The settled answer of one item: an annotator's answer taken, the majority, or edited.

    Stale when a submitted answer of the item changed after ``decided_at`` (the item is then
    back in the adjudication queue). Every decision appends an AdjudicationRevision.
    """

    class Source(models.TextChoices):
        ANNOTATION = "annotation", _("an annotator's answer")
        MAJORITY = "majority", _("the majority answer")
        EDITED = "edited", _("edited by the adjudicator")

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="adjudication", verbose_name=_("item"))
    answer = models.JSONField(_("final answer fields"))
    source = models.CharField(_("source"), max_length=12, choices=Source.choices)
    # The annotation taken (source "annotation"); its version at the time of the decision.
    source_annotation = models.ForeignKey(
        Annotation, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("source annotation")
    )
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="adjudications", verbose_name=_("adjudicator")
    )
    note = models.TextField(_("note"), blank=True)
    # {annotation id: version} of the submitted answers the decision saw: what changed since.
    seen_versions = models.JSONField(default=dict, verbose_name=_("seen versions"))
    version = models.PositiveIntegerField(_("version"), default=1)
    decided_at = models.DateTimeField(_("decided"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

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
        return str(_("adjudication of %(item)s (%(source)s)") % {"item": self.item, "source": self.get_source_display()})


class AdjudicationRevision(models.Model):
    """Append-only history: one row per decision on an item."""

    adjudication = models.ForeignKey(Adjudication, on_delete=models.CASCADE, related_name="revisions", verbose_name=_("adjudication"))
    version = models.PositiveIntegerField(verbose_name=_("version"))
    answer = models.JSONField(verbose_name=_("answer"))
    source = models.CharField(max_length=12, choices=Adjudication.Source.choices, verbose_name=_("source"))
    source_annotation = models.ForeignKey(
        Annotation, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("source annotation")
    )
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("adjudicator")
    )
    note = models.TextField(blank=True, verbose_name=_("note"))
    seen_versions = models.JSONField(default=dict, verbose_name=_("seen versions"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

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

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="adjudication_claim", verbose_name=_("item"))
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("adjudicator"))
    expires_at = models.DateTimeField(verbose_name=_("expires at"))

    class Meta:
        verbose_name = _("adjudication claim")
        verbose_name_plural = _("adjudication claims")

    def __str__(self) -> str:
        return str(_("%(item)s held by %(adjudicator)s") % {"item": self.item, "adjudicator": self.adjudicator})
