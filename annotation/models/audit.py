"""The gold audit's record: corrected gold versions and the decisions on audited items.

An item's original gold (``GoldAnswer``, with the time it was added: version 1) is the
benchmark's and is never changed; a correction is a new ``GoldVersion`` (2, 3, ...), the old
ones kept. Each decision of the audit is a ``GoldAuditDecision``, the latest of an item's
deciding its audited gold: the gold stands, the gold is corrected (naming its version), or the
item is withdrawn from the audited gold."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.datasets import Item


class GoldVersion(models.Model):
    """A corrected gold line of an item, made by a decision of the gold audit."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="gold_versions", db_index=False,
                             verbose_name=_("item"))
    # The original gold (GoldAnswer) is version 1: a correction is 2 or later.
    version = models.PositiveIntegerField(_("version"))
    payload = models.JSONField(_("gold line"))
    reason = models.TextField(_("reason"))
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                               verbose_name=_("author"))
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["item", "version"]
        verbose_name = _("gold version")
        verbose_name_plural = _("gold versions")
        constraints = [
            models.UniqueConstraint(fields=["item", "version"], name="gold_version_unique_version"),
            models.CheckConstraint(condition=Q(version__gte=2), name="gold_version_after_original"),
            models.CheckConstraint(condition=~Q(reason=""), name="gold_version_has_reason"),
        ]

    def __str__(self) -> str:
        return str(_("gold of %(item)s, version %(version)s") % {"item": self.item, "version": self.version})


class GoldAuditDecision(models.Model):
    """One decision of the gold audit on an item; an item's latest decision is the one in force."""

    class Kind(models.TextChoices):
        STANDS = "stands", _("the gold stands")
        CORRECTED = "corrected", _("the gold is corrected")
        WITHDRAWN = "withdrawn", _("the item is withdrawn")

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="gold_audit_decisions", db_index=False,
                             verbose_name=_("item"))
    kind = models.CharField(_("decision"), max_length=10, choices=Kind.choices)
    note = models.TextField(_("note"))
    gold_version = models.OneToOneField(GoldVersion, on_delete=models.PROTECT, null=True, blank=True,
                                        related_name="decision", verbose_name=_("gold version"))
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                   verbose_name=_("by"))
    decided_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["item", "decided_at", "pk"]
        verbose_name = _("gold audit decision")
        verbose_name_plural = _("gold audit decisions")
        indexes = [models.Index(fields=["item", "decided_at"], name="gold_audit_decision_item")]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=["stands", "corrected", "withdrawn"]),
                                   name="gold_audit_decision_kind_valid"),
            # A correction names the version it made, and only a correction does.
            models.CheckConstraint(
                condition=Q(kind="corrected", gold_version__isnull=False) | (~Q(kind="corrected") & Q(gold_version__isnull=True)),
                name="gold_audit_decision_version_when_corrected",
            ),
            models.CheckConstraint(condition=~Q(note=""), name="gold_audit_decision_has_note"),
        ]

    def __str__(self) -> str:
        return str(_("%(decision)s: item %(item)s") % {"decision": self.get_kind_display(), "item": self.item})
