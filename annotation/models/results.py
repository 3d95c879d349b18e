"""What the reports add to the human sources: models' submissions, and campaigns of datasets."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.datasets import Dataset


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
