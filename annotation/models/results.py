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

    class HumanSource(models.TextChoices):
        """The pooled human source the campaign table sets beside the models."""

        MAJORITY_FILLED = "majority_filled", _("majority filled with adjudications")
        MAJORITY = "majority", _("majority")
        ADJUDICATED = "adjudicated", _("adjudicated")
        DAWID_SKENE = "dawid_skene", _("Dawid–Skene")

    human_source = models.CharField(_("human source"), max_length=20, choices=HumanSource.choices,
                                    default=HumanSource.MAJORITY_FILLED)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(human_source__in=["majority_filled", "majority", "adjudicated",
                                                                 "dawid_skene"]),
                                   name="campaign_human_source_valid"),
        ]
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")

    def __str__(self) -> str:
        return self.name


class StoredReport(models.Model):
    """A report computed in the background (annotation.results.computing): a dataset's report
    or a campaign's table, for one data version, seed and option, with what the page, every
    download, every plot and the API serve from it at once. One row per (target, version,
    seed, option): two requests never start two computations of the same version."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        RUNNING = "running", _("computing")
        DONE = "done", _("finished")
        FAILED = "failed", _("failed")

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    # The data version requested (a digest of `version`: annotation.results.selectors.data_version).
    version = models.CharField(max_length=64)
    seed = models.PositiveBigIntegerField()
    exclude_below_control = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # What the computation saw: the figures of the data version (counts, latest times and ids).
    seen = models.JSONField(null=True, blank=True)
    report = models.JSONField(null=True, blank=True)
    # The plots as drawn ({key, title, alt, svg, headers, rows} each); what is served is in `parts`.
    plots = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    # When a worker took it (running since): a computation running much longer died with its worker.
    started_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        verbose_name = _("computed report")
        verbose_name_plural = _("computed reports")
        constraints = [
            models.CheckConstraint(condition=Q(dataset__isnull=True) ^ Q(campaign__isnull=True),
                                   name="stored_report_one_target"),
            models.UniqueConstraint(fields=["dataset", "version", "seed", "exclude_below_control"],
                                    condition=Q(dataset__isnull=False), name="stored_report_dataset_version"),
            models.UniqueConstraint(fields=["campaign", "version", "seed", "exclude_below_control"],
                                    condition=Q(campaign__isnull=False), name="stored_report_campaign_version"),
            models.CheckConstraint(condition=Q(status__in=["pending", "running", "done", "failed"]),
                                   name="stored_report_status_valid"),
        ]
        indexes = [models.Index(fields=["dataset", "seed", "exclude_below_control", "status", "-computed_at"],
                                name="stored_report_dataset_newest"),
                   models.Index(fields=["campaign", "seed", "exclude_below_control", "status", "-computed_at"],
                                name="stored_report_campaign_newest")]

    def __str__(self) -> str:
        return f"report of {self.dataset or self.campaign} ({self.version[:8]}, seed {self.seed})"


class StoredReportPart(models.Model):
    """One thing a computed report serves as it is, read alone: a download (``file``, by format),
    a plot's SVG (``plot``, by key), the page's body (``page``, by language code) or the API's
    JSON (``api``)."""

    class Kind(models.TextChoices):
        FILE = "file", _("download")
        PLOT = "plot", _("plot")
        PAGE = "page", _("page")
        API = "api", _("API")

    stored = models.ForeignKey(StoredReport, on_delete=models.CASCADE, related_name="parts", db_index=False)
    kind = models.CharField(max_length=4, choices=Kind.choices)
    key = models.CharField(max_length=300)
    content = models.TextField()

    class Meta:
        ordering = ["stored", "kind", "key"]
        verbose_name = _("computed report part")
        verbose_name_plural = _("computed report parts")
        constraints = [
            models.UniqueConstraint(fields=["stored", "kind", "key"], name="stored_report_part_unique"),
            models.CheckConstraint(condition=Q(kind__in=["file", "plot", "page", "api"]), name="stored_report_part_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} of {self.stored}"
