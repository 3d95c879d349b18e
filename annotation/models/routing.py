"""Routing's own rows (annotation.annotate.routing): the annotators a routed dataset serves,
each one's seeded order of its items, and each item's load counter."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.datasets import Dataset, Item


class RoutedAnnotator(models.Model):
    """An annotator a routed dataset serves; locked while their next item is chosen, so one
    annotator's two tabs take positions one after the other."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="routed_annotators", db_index=False,
                                verbose_name=_("dataset"))
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="routings",
                                  verbose_name=_("annotator"))
    # Positions given so far (control items among them): the next one is served + 1.
    served = models.PositiveIntegerField(_("positions served"), default=0)
    # Every item of their order before this rank has been given to someone (annotation.annotate.routing).
    cursor = models.PositiveIntegerField(_("untouched items from rank"), default=0)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    # Their own quota (a panel study's), instead of the dataset's; and the time after which they
    # are given nothing more and their reservations lapse (a study participant's deadline).
    quota = models.PositiveIntegerField(_("items at most"), null=True, blank=True)
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    # Their order is stored a chunk at a time, as their cursor reaches the end of what is stored
    # (annotation.datasets.assigning.extend_order): a panel participant with a quota of 5 items
    # of 1,000 needs a few rows of it, and the rows written at the entry were its cost.
    order_complete = models.BooleanField(_("whole order stored"), default=False)

    class Meta:
        ordering = ["dataset", "annotator"]
        verbose_name = _("routed annotator")
        verbose_name_plural = _("routed annotators")
        constraints = [
            models.UniqueConstraint(fields=["dataset", "annotator"], name="routed_annotator_unique"),
            models.CheckConstraint(condition=Q(quota__isnull=True) | Q(quota__gte=1), name="routed_annotator_quota_positive"),
        ]

    def __str__(self) -> str:
        return str(_("%(annotator)s in %(dataset)s") % {"annotator": self.annotator, "dataset": self.dataset})


class RoutedItem(models.Model):
    """A sample item of a routed dataset and its load: submitted answers plus reservations
    (open, or expired and not yet released). Only the row lock on this counter decides
    whether one more annotator may take the item."""

    item = models.OneToOneField(Item, on_delete=models.CASCADE, primary_key=True, related_name="routing",
                                verbose_name=_("item"))
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="routed_items", db_index=False,
                                verbose_name=_("dataset"))
    submitted = models.PositiveIntegerField(_("submitted answers"), default=0)
    reserved = models.PositiveIntegerField(_("reservations"), default=0)
    # Answers submitted after their reservation expired (stored and counted in `submitted`).
    late = models.PositiveIntegerField(_("answers after an expired reservation"), default=0)
    # 1..m: a pilot item, in the sample's order (served to every annotator first, exempt from k).
    pilot_rank = models.PositiveIntegerField(_("place in the pilot"), null=True, blank=True)
    # Given to someone at least once / has k submitted answers: what the choice's stages read.
    touched = models.BooleanField(_("given at least once"), default=False)
    complete = models.BooleanField(_("has k answers"), default=False)

    class Meta:
        ordering = ["dataset", "item"]
        verbose_name = _("routed item")
        verbose_name_plural = _("routed items")
        constraints = [
            models.UniqueConstraint(fields=["dataset", "pilot_rank"], name="routed_item_unique_pilot_rank"),
            models.CheckConstraint(condition=Q(late__lte=models.F("submitted")), name="routed_item_late_submitted"),
        ]
        indexes = [
            models.Index(fields=["dataset", "item"], name="routed_item_dataset"),
            # The items in progress (given, short of k) and the open ones: few, whatever the dataset's size.
            models.Index(fields=["dataset"], condition=Q(touched=True, complete=False), name="routed_item_in_progress"),
            models.Index(fields=["dataset"], condition=Q(complete=False), name="routed_item_open"),
        ]

    def __str__(self) -> str:
        return f"{self.item}: {self.submitted} + {self.reserved}"


class RoutingOrder(models.Model):
    """One item's place in one annotator's own order of a routed dataset (drawn once, when the
    annotator joins): how ties between items of equal load are broken for them."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="routing_orders", db_index=False,
                                verbose_name=_("dataset"))
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False,
                                  verbose_name=_("annotator"))
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+", db_index=False,
                             verbose_name=_("item"))
    rank = models.PositiveIntegerField(_("place in the annotator's order"))
    # Skipped by the annotator: comes back to them only after every other item.
    skipped_at = models.DateTimeField(_("skipped"), null=True, blank=True)

    class Meta:
        ordering = ["dataset", "annotator", "rank"]
        verbose_name = _("routing order")
        verbose_name_plural = _("routing orders")
        constraints = [
            models.UniqueConstraint(fields=["dataset", "annotator", "rank"], name="routing_order_unique_rank"),
            models.UniqueConstraint(fields=["annotator", "item"], name="routing_order_unique_item"),
        ]
        indexes = [
            models.Index(fields=["dataset", "annotator", "skipped_at"], condition=Q(skipped_at__isnull=False),
                         name="routing_order_skipped"),
        ]

    def __str__(self) -> str:
        return str(_("%(item)s, place %(rank)s for %(annotator)s") % {"item": self.item, "rank": self.rank,
                                                                        "annotator": self.annotator})
