"""Training rounds, their answers and the explanations of training items' gold."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.datasets import Dataset, Item


class TrainingRound(models.Model):
    """One try of an annotator at a dataset's training round (the items of its training pool).

    Finished when every training item has an answer; ``score`` is then the mean correctness.
    The latest round decides: finished at or above the dataset's threshold (or with no
    threshold), or released by an organizer, lets the annotator work on real items.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="training_rounds", verbose_name=_("dataset"))
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="training_rounds", verbose_name=_("annotator")
    )
    attempt = models.PositiveIntegerField(_("try"))
    started_at = models.DateTimeField(auto_now_add=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    score = models.FloatField(_("score"), null=True, blank=True)
    released_at = models.DateTimeField(null=True, blank=True, verbose_name=_("released at"))
    released_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("released by")
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
        return str(_("training round of %(annotator)s in %(dataset)s, try %(attempt)s") % {"annotator": self.annotator, "dataset": self.dataset, "attempt": self.attempt})


class TrainingAnswer(models.Model):
    """An answer to a training item: never an Annotation, so it counts nowhere else."""

    round = models.ForeignKey(TrainingRound, on_delete=models.CASCADE, related_name="answers", verbose_name=_("round"))
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="training_answers", verbose_name=_("item"))
    answer = models.JSONField(_("answer fields"))
    correctness = models.FloatField(_("correctness"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["round", "created_at"]
        verbose_name = _("training answer")
        verbose_name_plural = _("training answers")
        constraints = [
            models.UniqueConstraint(fields=["round", "item"], name="training_answer_once_per_round"),
            models.CheckConstraint(condition=Q(correctness__gte=0, correctness__lte=1), name="training_answer_correctness_unit"),
        ]

    def __str__(self) -> str:
        return str(_("%(item)s in %(round)s") % {"item": self.item, "round": self.round})


class Explanation(models.Model):
    """The organizer's explanation of a training item's gold answer, shown with the feedback."""

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="explanation", verbose_name=_("item"))
    text = models.TextField(_("explanation"))

    class Meta:
        verbose_name = _("explanation")
        verbose_name_plural = _("explanations")

    def __str__(self) -> str:
        return str(_("explanation of %(item)s") % {"item": self.item})
