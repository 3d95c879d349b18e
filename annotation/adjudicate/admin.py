"""Admin pages of the adjudications and their revisions: read only, deleted by superusers only;
and of the adjudicators' claims on items, which organizers see and release (delete)."""

from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.core.admin import HistoryAdmin, OrganizerOnlyAdmin
from annotation.models import Adjudication, AdjudicationClaim, AdjudicationRevision


@admin.register(Adjudication)
class AdjudicationAdmin(HistoryAdmin):
    list_display = ["item", "source", "version", "adjudicator", "decided_at"]
    list_filter = ["source", "item__dataset"]
    search_fields = ["item__external_id", "item__dataset__name", "adjudicator__username"]
    list_select_related = ["item", "adjudicator"]


@admin.register(AdjudicationRevision)
class AdjudicationRevisionAdmin(HistoryAdmin):
    list_display = ["adjudication", "version", "source", "adjudicator", "created_at"]
    list_filter = ["source", "adjudication__item__dataset"]
    search_fields = ["adjudication__item__external_id", "adjudicator__username"]
    list_select_related = ["adjudication__item", "adjudicator"]


@admin.register(AdjudicationClaim)
class AdjudicationClaimAdmin(OrganizerOnlyAdmin):
    """A claim is made by the adjudication page (and renewed there); an organizer may release
    one (delete it) so that another adjudicator gets the item before it expires."""

    list_display = ["item", "dataset", "adjudicator", "expires_at", "in_force"]
    list_filter = [
        "item__dataset__subtask",
        ("item__dataset", admin.RelatedOnlyFieldListFilter),
        ("adjudicator", admin.RelatedOnlyFieldListFilter),
        "expires_at",
    ]
    search_fields = ["item__external_id", "item__dataset__name", "adjudicator__username"]
    list_select_related = ["item__dataset", "adjudicator"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.display(description=_("dataset"), ordering="item__dataset__name")
    def dataset(self, claim: AdjudicationClaim) -> str:
        return claim.item.dataset.name

    @admin.display(description=_("in force"), boolean=True, ordering="expires_at")
    def in_force(self, claim: AdjudicationClaim) -> bool:
        return claim.expires_at > timezone.now()
