"""Admin pages of datasets, their items, gold, assignments and flags, and the record of removals.
Items, gold (its audit versions and decisions too) and the record are history: read only, deleted by superusers only."""

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotation.core.admin import HistoryAdmin, OrganizerOnlyAdmin, _is_organizer
from annotation.models import (
    Assignment,
    Dataset,
    Flag,
    GoldAnswer,
    GoldAuditDecision,
    GoldVersion,
    Item,
    RemovalRecord,
    RoutedAnnotator,
    RoutedItem,
    RoutingOrder,
)


@admin.register(Dataset)
class DatasetAdmin(OrganizerOnlyAdmin):
    list_display = ["name", "subtask", "frozen", "gold_synthetic", "gold_revealed", "created_by", "created_at"]
    list_filter = ["subtask", "frozen", "gold_synthetic", "gold_revealed"]
    search_fields = ["name", "source_filename", "source_sha256"]
    # Routing and the pilot's size are chosen on the dataset's page, which refuses them after the first answer.
    readonly_fields = ["subtask", "source_filename", "source_sha256", "created_by", "created_at", "archived_at",
                       "archived_by", "routing", "answers_per_item", "pilot_size"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # A dataset is made by importing a checked inputs file, never by hand.
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Organizers delete or archive on the dataset's removal page, which checks what depends
        # on it and records it (annotation.datasets.removing); a superuser may still here.
        return _is_organizer(request) and request.user.is_superuser


@admin.register(Item)
class ItemAdmin(HistoryAdmin):
    list_display = ["external_id", "dataset", "ordinal"]
    list_filter = ["dataset__subtask", "dataset"]
    search_fields = ["external_id", "dataset__name"]
    list_select_related = ["dataset"]


@admin.register(GoldAnswer)
class GoldAnswerAdmin(HistoryAdmin):
    list_display = ["item", "dataset_name", "added_at"]
    list_filter = ["item__dataset__subtask", "item__dataset"]
    search_fields = ["item__external_id", "item__dataset__name"]
    list_select_related = ["item__dataset"]

    @admin.display(description=_("dataset"), ordering="item__dataset__name")
    def dataset_name(self, gold: GoldAnswer) -> str:
        return gold.item.dataset.name


@admin.register(Assignment)
class AssignmentAdmin(OrganizerOnlyAdmin):
    list_display = ["item", "annotator", "dataset", "position", "skipped_at", "created_at"]
    list_filter = ["dataset", "annotator"]
    search_fields = ["item__external_id", "annotator__username", "dataset__name"]
    list_select_related = ["item", "annotator", "dataset"]
    readonly_fields = ["dataset", "item", "annotator", "position", "skipped_at", "created_at", "reserved_until",
                       "reservation_lapsed"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Assignments come from the assignment flow, which keeps k, balance and order.
        return False


@admin.register(Flag)
class FlagAdmin(OrganizerOnlyAdmin):
    list_display = ["item", "raised_by", "created_at", "resolved_at", "resolved_by"]
    list_filter = [("resolved_at", admin.EmptyFieldListFilter), "item__dataset"]
    search_fields = ["item__external_id", "comment", "resolution_note", "raised_by__username"]
    list_select_related = ["item", "raised_by", "resolved_by"]
    readonly_fields = ["item", "raised_by", "comment", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # A flag is an annotator's word on an item: resolved, never removed, but by a superuser.
        return _is_organizer(request) and request.user.is_superuser


@admin.register(RemovalRecord)
class RemovalRecordAdmin(HistoryAdmin):
    list_display = ["at", "by", "kind", "name", "action", "dataset_name"]
    list_filter = ["kind", "action"]
    search_fields = ["name", "dataset_name", "by__username"]
    list_select_related = ["by"]


# Routing's rows (annotation.datasets.routing, annotation.annotate.routing): written by its flows
# only, which keep the load counters true; read only here.
@admin.register(RoutedAnnotator)
class RoutedAnnotatorAdmin(HistoryAdmin):
    list_display = ["annotator", "dataset", "served", "joined_at"]
    list_filter = ["dataset"]
    search_fields = ["annotator__username", "dataset__name"]
    list_select_related = ["annotator", "dataset"]


@admin.register(RoutedItem)
class RoutedItemAdmin(HistoryAdmin):
    list_display = ["item", "dataset", "submitted", "reserved", "late", "pilot_rank"]
    list_filter = ["dataset"]
    search_fields = ["item__external_id", "dataset__name"]
    list_select_related = ["item", "dataset"]


@admin.register(RoutingOrder)
class RoutingOrderAdmin(HistoryAdmin):
    list_display = ["annotator", "rank", "item", "dataset", "skipped_at"]
    list_filter = ["dataset"]
    search_fields = ["annotator__username", "item__external_id", "dataset__name"]
    list_select_related = ["annotator", "item", "dataset"]
@admin.register(GoldVersion)
class GoldVersionAdmin(HistoryAdmin):
    list_display = ["item", "version", "author", "created_at"]
    list_filter = ["item__dataset"]
    search_fields = ["item__external_id", "reason", "author__username"]
    list_select_related = ["item", "author"]


@admin.register(GoldAuditDecision)
class GoldAuditDecisionAdmin(HistoryAdmin):
    list_display = ["item", "kind", "decided_by", "decided_at"]
    list_filter = ["kind", "item__dataset"]
    search_fields = ["item__external_id", "note", "decided_by__username"]
    list_select_related = ["item", "decided_by"]
