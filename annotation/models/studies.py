"""Panel studies' own rows (annotation.studies): a study, its datasets in order, its
participants (each an annotator account of their own, the panel's id kept apart) and the
entries it refused."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.datasets import Dataset
from annotation.models.results import Campaign

PROLIFIC_RETURN_LINK = "https://app.prolific.com/submissions/complete?cc={code}"


class Study(models.Model):
    """Participants sent by a panel (Prolific or any other) to an entry link, each with a quota
    of items per dataset, a deadline, a consent, a training round where the dataset has one,
    and a code to take back to the panel."""

    class State(models.TextChoices):
        OPEN = "open", _("open")
        PAUSED = "paused", _("paused")
        CLOSED = "closed", _("closed")

    class PayBasis(models.TextChoices):
        PARTICIPANT = "participant", _("per participant")
        HOUR = "hour", _("per hour")

    class BonusRule(models.TextChoices):
        NONE = "none", _("no bonus")
        PER_CONTROL = "per_control", _("an amount per control item answered right")
        THRESHOLD = "threshold", _("an amount for control accuracy at least a threshold")

    name = models.CharField(_("name"), max_length=100, unique=True)
    # The entry link's secret part: /study/<token>/.
    token = models.CharField(_("link token"), max_length=64, unique=True)
    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, null=True, blank=True, related_name="studies",
                                 verbose_name=_("campaign"))
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.OPEN)
    closed_by_itself = models.BooleanField(_("closed when the items ran out"), default=False)
    deadline_minutes = models.PositiveIntegerField(_("time per participant (minutes)"), default=60)
    consent = models.TextField(_("consent text"))
    completed_code = models.CharField(_("completion code"), max_length=50)
    screened_out_code = models.CharField(_("code for a failed training round"), max_length=50)
    no_consent_code = models.CharField(_("code for no consent"), max_length=50)
    return_link = models.CharField(_("return link"), max_length=500, default=PROLIFIC_RETURN_LINK)
    participant_parameter = models.CharField(_("participant id parameter"), max_length=50, default="PROLIFIC_PID")
    study_parameter = models.CharField(_("study id parameter"), max_length=50, default="STUDY_ID")
    session_parameter = models.CharField(_("session id parameter"), max_length=50, default="SESSION_ID")
    # A regular expression the whole participant id must match (Prolific's: 24 hexadecimal digits).
    participant_id_pattern = models.CharField(_("participant id format"), max_length=200, default="[0-9a-f]{24}")
    panel_study_id = models.CharField(_("the panel's study id"), max_length=100, blank=True)
    # Ids the panel uses for previews and tests, one per line: such entries are never counted.
    test_ids = models.TextField(_("preview and test ids"), blank=True)
    pay_amount = models.DecimalField(_("pay"), max_digits=10, decimal_places=2)
    pay_currency = models.CharField(_("currency"), max_length=3, default="GBP")
    pay_basis = models.CharField(_("pay basis"), max_length=11, choices=PayBasis.choices, default=PayBasis.PARTICIPANT)
    minimum_hourly_rate = models.DecimalField(_("minimum hourly rate"), max_digits=10, decimal_places=2, null=True,
                                              blank=True)
    bonus_rule = models.CharField(_("bonus rule"), max_length=11, choices=BonusRule.choices, default=BonusRule.NONE)
    bonus_amount = models.DecimalField(_("bonus amount"), max_digits=10, decimal_places=2, null=True, blank=True)
    bonus_threshold = models.FloatField(_("control accuracy for the bonus"), null=True, blank=True)
    # Control items whose wrong answer is a failed attention check (external ids, one per line);
    # a participant who failed at least `attention_failures` of them is listed for review.
    attention_items = models.TextField(_("attention check items"), blank=True)
    attention_failures = models.PositiveIntegerField(_("failed attention checks to review"), default=2)
    # Entries that declined the consent: only counted, nothing else is kept of them.
    declined = models.PositiveIntegerField(_("entries without consent"), default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+", verbose_name=_("created by"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    reconciled_at = models.DateTimeField(_("reconciled with the panel"), null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("study")
        verbose_name_plural = _("studies")
        constraints = [
            models.CheckConstraint(condition=Q(state__in=["open", "paused", "closed"]), name="study_state_valid"),
            models.CheckConstraint(condition=Q(pay_basis__in=["participant", "hour"]), name="study_pay_basis_valid"),
            models.CheckConstraint(condition=Q(pay_amount__gte=0), name="study_pay_not_negative"),
            models.CheckConstraint(condition=Q(deadline_minutes__gte=1), name="study_deadline_positive"),
            models.CheckConstraint(
                condition=Q(bonus_rule="none")
                | Q(bonus_rule="per_control", bonus_amount__gte=0)
                | Q(bonus_rule="threshold", bonus_amount__gte=0, bonus_threshold__gte=0, bonus_threshold__lte=1),
                name="study_bonus_rule_complete",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class StudyDataset(models.Model):
    """A dataset of a study, in the order participants work through them, with each
    participant's quota of its items."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="steps", verbose_name=_("study"))
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="study_steps", verbose_name=_("dataset"))
    order = models.PositiveIntegerField(_("order"))
    quota = models.PositiveIntegerField(_("items per participant"))

    class Meta:
        # By the study's id, not its name: a participant's every page reads their study's steps,
        # and ordering by the name joined the study to each of those reads.
        ordering = ["study_id", "order"]
        verbose_name = _("study dataset")
        verbose_name_plural = _("study datasets")
        constraints = [
            models.UniqueConstraint(fields=["study", "order"], name="study_dataset_unique_order"),
            models.UniqueConstraint(fields=["study", "dataset"], name="study_dataset_unique_dataset"),
            models.CheckConstraint(condition=Q(quota__gte=1), name="study_dataset_quota_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.study} {self.order}: {self.dataset}"


class StudyParticipant(models.Model):
    """One person a panel sent: their own annotator account (no password, no e-mail), and,
    kept apart from it and only for the payment files, the panel's ids."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants", verbose_name=_("study"))
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_participant",
                                verbose_name=_("account"))
    # Null once deleted after payment (the account and its pseudonym stay).
    panel_id = models.CharField(_("panel participant id"), max_length=100, null=True, blank=True)
    panel_session = models.CharField(_("panel session id"), max_length=100, blank=True)
    test = models.BooleanField(_("a preview or test entry"), default=False)
    entered_at = models.DateTimeField(_("entered"))
    deadline = models.DateTimeField(_("deadline"))
    # How many of the study's datasets, in order, have nothing more for them (their current
    # step is the next one).
    steps_done = models.PositiveIntegerField(_("datasets done"), default=0)
    completed_at = models.DateTimeField(_("completed"), null=True, blank=True)
    screened_out_at = models.DateTimeField(_("screened out"), null=True, blank=True)
    # Set by a reconciliation whose panel export does not list them: left out of exports,
    # reports and payment files.
    unreconciled_at = models.DateTimeField(_("missing from the panel's export"), null=True, blank=True)
    panel_status = models.CharField(_("status on the panel"), max_length=50, blank=True)

    class Meta:
        ordering = ["study", "entered_at", "pk"]
        verbose_name = _("study participant")
        verbose_name_plural = _("study participants")
        constraints = [
            models.UniqueConstraint(fields=["study", "panel_id"], condition=Q(panel_id__isnull=False),
                                    name="study_participant_unique_panel_id"),
            models.CheckConstraint(condition=Q(completed_at__isnull=True) | Q(screened_out_at__isnull=True),
                                   name="study_participant_completed_or_screened_out"),
        ]

    def __str__(self) -> str:
        return str(_("%(user)s in %(study)s") % {"user": self.user, "study": self.study})


class StudyRefusal(models.Model):
    """An entry the study refused (a panel id that entered before, from another session), listed
    for the organizer."""

    class Reason(models.TextChoices):
        OTHER_SESSION = "other_session", _("the id entered before, in another session")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="refusals", verbose_name=_("study"))
    panel_id = models.CharField(_("panel participant id"), max_length=100, null=True, blank=True)
    panel_session = models.CharField(_("panel session id"), max_length=100, blank=True)
    reason = models.CharField(_("reason"), max_length=20, choices=Reason.choices)
    at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["study", "-at", "-pk"]
        verbose_name = _("refused entry")
        verbose_name_plural = _("refused entries")
        constraints = [
            models.CheckConstraint(condition=Q(reason__in=["other_session"]), name="study_refusal_reason_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.study}: {self.get_reason_display()}"
