"""What the reports add to the human sources: models' submissions, and campaigns of datasets."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.datasets import Dataset


class ModelSubmission(models.Model):
    """A model's answers to a dataset, uploaded by an organizer to be reported beside the
    human sources: a whole submission file, valid as `python -m scoring validate --inputs`."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="model_submissions", verbose_name=_("dataset"))
    name = models.CharField(_("model name"), max_length=100)
    filename = models.CharField(_("file"), max_length=255)
    data = models.BinaryField(_("submission file"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("uploaded by")
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
        return str(_("%(name)s on %(dataset)s") % {"name": self.name, "dataset": self.dataset})


class Campaign(models.Model):
    """Datasets reported together, at most one per subtask (e.g. "test-A"): the campaign table."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    datasets = models.ManyToManyField(Dataset, related_name="campaigns", verbose_name=_("datasets"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("created by")
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

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, null=True, blank=True, related_name="+", verbose_name=_("dataset"))
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, null=True, blank=True, related_name="+", verbose_name=_("campaign"))
    # The data version requested (a digest of `version`: annotation.results.selectors.data_version).
    version = models.CharField(max_length=64, verbose_name=_("version"))
    seed = models.PositiveBigIntegerField(verbose_name=_("seed"))
    exclude_below_control = models.BooleanField(default=False, verbose_name=_("exclude below control"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, verbose_name=_("status"))
    # What the computation saw: the figures of the data version (counts, latest times and ids).
    seen = models.JSONField(null=True, blank=True, verbose_name=_("seen"))
    report = models.JSONField(null=True, blank=True, verbose_name=_("report"))
    # The plots as drawn ({key, title, alt, svg, headers, rows} each); what is served is in `parts`.
    plots = models.JSONField(default=list, blank=True, verbose_name=_("plots"))
    error = models.TextField(blank=True, verbose_name=_("error"))
    requested_at = models.DateTimeField(auto_now_add=True, verbose_name=_("requested at"))
    # When a worker took it (running since): a computation running much longer died with its worker.
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    computed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("computed at"))

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
        return str(_("report of %(of)s (%(version)s, seed %(seed)s)") % {"of": self.dataset or self.campaign, "version": self.version[:8], "seed": self.seed})


class StoredReportPart(models.Model):
    """One thing a computed report serves as it is, read alone: a download (``file``, by format),
    a plot's SVG (``plot``, by key), the page's body (``page``, by language code) or the API's
    JSON (``api``)."""

    class Kind(models.TextChoices):
        FILE = "file", _("download")
        PLOT = "plot", _("plot")
        PAGE = "page", _("page")
        API = "api", _("API")

    stored = models.ForeignKey(StoredReport, on_delete=models.CASCADE, related_name="parts", db_index=False, verbose_name=_("stored"))
    kind = models.CharField(max_length=4, choices=Kind.choices, verbose_name=_("kind"))
    key = models.CharField(max_length=300, verbose_name=_("key"))
    content = models.TextField(verbose_name=_("content"))

    class Meta:
        ordering = ["stored", "kind", "key"]
        verbose_name = _("computed report part")
        verbose_name_plural = _("computed report parts")
        constraints = [
            models.UniqueConstraint(fields=["stored", "kind", "key"], name="stored_report_part_unique"),
            models.CheckConstraint(condition=Q(kind__in=["file", "plot", "page", "api"]), name="stored_report_part_kind_valid"),
        ]

    def __str__(self) -> str:
        return str(_("%(kind)s %(key)s of %(stored)s") % {"kind": self.get_kind_display(), "key": self.key, "stored": self.stored})


class Pseudonym(models.Model):
    """A person's pseudonym in one campaign, "A<number>": given once (numbers in the order
    people are first named, by username) and kept, so the paper, the release bundle and every
    page that shows pseudonyms name the same person the same way however often they are made."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pseudonyms", verbose_name=_("campaign"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user"))
    number = models.PositiveIntegerField(_("number"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["campaign", "number"]
        verbose_name = _("pseudonym")
        verbose_name_plural = _("pseudonyms")
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="pseudonym_one_per_person"),
            models.UniqueConstraint(fields=["campaign", "number"], name="pseudonym_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="pseudonym_number_positive"),
        ]

    @property
    def label(self) -> str:
        return f"A{self.number}"

    def __str__(self) -> str:
        return str(_("%(label)s in campaign %(campaign)s") % {"label": self.label, "campaign": self.campaign})


class CampaignProtocol(models.Model):
    """What only the organizer knows about how a campaign's annotators took part, as the paper
    and its checklist state it: recruitment, pay, consent and the demographics collected."""

    class PayBasis(models.TextChoices):
        PARTICIPANT = "participant", _("per participant")
        HOUR = "hour", _("per hour")

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="protocol", verbose_name=_("campaign"))
    recruitment = models.TextField(_("recruitment"), blank=True)
    pay_amount = models.DecimalField(_("pay"), max_digits=10, decimal_places=2, null=True, blank=True)
    pay_currency = models.CharField(_("currency"), max_length=3, blank=True)
    pay_basis = models.CharField(_("pay basis"), max_length=11, choices=PayBasis.choices, blank=True)
    consent = models.TextField(_("consent"), blank=True)
    demographics = models.TextField(_("demographics"), blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("updated by"),
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("campaign protocol")
        verbose_name_plural = _("campaign protocols")
        constraints = [
            models.CheckConstraint(condition=Q(pay_amount__isnull=True) | Q(pay_amount__gte=0),
                                   name="protocol_pay_not_negative"),
            models.CheckConstraint(condition=Q(pay_basis__in=["", "participant", "hour"]),
                                   name="protocol_pay_basis_valid"),
            models.CheckConstraint(condition=Q(pay_amount__isnull=True) | ~Q(pay_basis=""),
                                   name="protocol_pay_has_basis"),
        ]

    def __str__(self) -> str:
        return str(_("protocol of campaign %(campaign)s") % {"campaign": self.campaign})
