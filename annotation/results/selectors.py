"""What the organizer's results pages list (the reports themselves: annotation.results.report)."""

from django.db.models import QuerySet

from annotation.models import Campaign


def campaigns() -> QuerySet[Campaign]:
    """Every campaign by name, with its datasets."""
    return Campaign.objects.prefetch_related("datasets").order_by("name")
