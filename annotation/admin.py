"""Admin pages for every model, for organizers only.

Records that make up the campaign's history (items, gold, answers and their revisions) are
read-only here: they are written by the import and annotation flows, which check them.
"""

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from annotation.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    Dataset,
    Flag,
    GoldAnswer,
    Item,
)
from annotation.roles import ORGANIZER, has_role


def _is_organizer(request: HttpRequest) -> bool:
    return request.user.is_active and request.user.is_staff and has_role(request.user, ORGANIZER)


class OrganizerOnlyMixin:
    """Organizers may do everything the admin class allows; nobody else sees it at all."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _is_organizer(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _is_organizer(request)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)


class OrganizerOnlyAdmin(OrganizerOnlyMixin, admin.ModelAdmin):
    pass


class ReadOnlyAdmin(OrganizerOnlyAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Dataset)
class DatasetAdmin(OrganizerOnlyAdmin):
    list_display = ["name", "subtask", "frozen", "gold_synthetic", "gold_revealed", "created_by", "created_at"]
    list_filter = ["subtask", "frozen", "gold_synthetic", "gold_revealed"]
    search_fields = ["name", "source_filename", "source_sha256"]
    readonly_fields = ["subtask", "source_filename", "source_sha256", "created_by", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # A dataset is made by importing a checked inputs file, never by hand.
        return False


@admin.register(Item)
class ItemAdmin(ReadOnlyAdmin):
    list_display = ["external_id", "dataset", "ordinal"]
    list_filter = ["dataset__subtask", "dataset"]
    search_fields = ["external_id", "dataset__name"]
    list_select_related = ["dataset"]


@admin.register(GoldAnswer)
class GoldAnswerAdmin(ReadOnlyAdmin):
    list_display = ["item", "dataset_name"]
    list_filter = ["item__dataset__subtask", "item__dataset"]
    search_fields = ["item__external_id", "item__dataset__name"]
    list_select_related = ["item__dataset"]

    @admin.display(description="dataset", ordering="item__dataset__name")
    def dataset_name(self, gold: GoldAnswer) -> str:
        return gold.item.dataset.name


@admin.register(Assignment)
class AssignmentAdmin(OrganizerOnlyAdmin):
    list_display = ["item", "annotator", "dataset", "position", "skipped_at", "created_at"]
    list_filter = ["dataset", "annotator"]
    search_fields = ["item__external_id", "annotator__username", "dataset__name"]
    list_select_related = ["item", "annotator", "dataset"]
    readonly_fields = ["dataset", "item", "annotator", "position", "skipped_at", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Assignments come from the assignment flow, which keeps k, balance and order.
        return False


class RevisionInline(admin.TabularInline):
    model = AnnotationRevision
    fields = ["version", "status", "answer", "active_ms", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)


@admin.register(Annotation)
class AnnotationAdmin(ReadOnlyAdmin):
    list_display = ["item", "annotator", "status", "version", "active_ms", "updated_at"]
    list_filter = ["status", "item__dataset", "annotator"]
    search_fields = ["item__external_id", "annotator__username", "item__dataset__name"]
    list_select_related = ["item", "annotator"]
    inlines = [RevisionInline]


@admin.register(AnnotationRevision)
class AnnotationRevisionAdmin(ReadOnlyAdmin):
    list_display = ["annotation", "version", "status", "active_ms", "created_at"]
    list_filter = ["status", "annotation__item__dataset"]
    search_fields = ["annotation__item__external_id", "annotation__annotator__username"]
    list_select_related = ["annotation__item", "annotation__annotator"]


@admin.register(Flag)
class FlagAdmin(OrganizerOnlyAdmin):
    list_display = ["item", "raised_by", "created_at", "resolved_at", "resolved_by"]
    list_filter = [("resolved_at", admin.EmptyFieldListFilter), "item__dataset"]
    search_fields = ["item__external_id", "comment", "resolution_note", "raised_by__username"]
    list_select_related = ["item", "raised_by", "resolved_by"]
    readonly_fields = ["item", "raised_by", "comment", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class OrganizerUserAdmin(OrganizerOnlyMixin, UserAdmin):
    """Organizers create and manage the accounts of the campaign; only superusers grant superuser."""

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request) and (request.user.is_superuser or not (obj and obj.is_superuser))

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_change_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        if request.user.is_superuser:
            return super().get_readonly_fields(request, obj)
        return ["is_superuser", "user_permissions", "last_login", "date_joined"]


admin.site.unregister(User)
admin.site.register(User, OrganizerUserAdmin)


class RevokeOnlyMixin(OrganizerOnlyMixin):
    """Organizers see these records and delete them (revoke a token, lift a lock-out); they are
    made by logging in, never here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class OrganizerTokenAdmin(RevokeOnlyMixin, TokenAdmin):
    pass


class OrganizerAccessAttemptAdmin(RevokeOnlyMixin, AccessAttemptAdmin):
    pass


admin.site.unregister(TokenProxy)
admin.site.register(TokenProxy, OrganizerTokenAdmin)
admin.site.unregister(AccessAttempt)
admin.site.register(AccessAttempt, OrganizerAccessAttemptAdmin)
