"""Admin pages for every model, for organizers only.

Records that make up the campaign's history (items, gold, answers, adjudications and their
revisions, flags) are read only here: they are written by the import, annotation and
adjudication flows, which check them, and only a superuser deletes them. Organizer and
superuser accounts are changed by superusers only (an organizer who could set another
organizer's password could log in as them).
"""

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group, User
from django.http import HttpRequest
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from annotation.models import (
    Adjudication,
    AdjudicationRevision,
    Annotation,
    AnnotationRevision,
    Assignment,
    Dataset,
    Flag,
    GoldAnswer,
    Item,
)
from annotation.roles import ORGANIZER, has_role, may_manage
from annotation.services.accounts import ACCOUNT_ROLES


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


class HistoryAdmin(OrganizerOnlyAdmin):
    """A record of the campaign's history: organizers see it; nobody adds or changes it here
    (that would bypass the flows' checks and their revisions); only a superuser deletes it."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request) and request.user.is_superuser


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
class ItemAdmin(HistoryAdmin):
    list_display = ["external_id", "dataset", "ordinal"]
    list_filter = ["dataset__subtask", "dataset"]
    search_fields = ["external_id", "dataset__name"]
    list_select_related = ["dataset"]


@admin.register(GoldAnswer)
class GoldAnswerAdmin(HistoryAdmin):
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
class AnnotationAdmin(HistoryAdmin):
    list_display = ["item", "annotator", "status", "version", "active_ms", "updated_at"]
    list_filter = ["status", "item__dataset", "annotator"]
    search_fields = ["item__external_id", "annotator__username", "item__dataset__name"]
    list_select_related = ["item", "annotator"]
    inlines = [RevisionInline]


@admin.register(AnnotationRevision)
class AnnotationRevisionAdmin(HistoryAdmin):
    list_display = ["annotation", "version", "status", "active_ms", "created_at"]
    list_filter = ["status", "annotation__item__dataset"]
    search_fields = ["annotation__item__external_id", "annotation__annotator__username"]
    list_select_related = ["annotation__item", "annotation__annotator"]


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


class OrganizerUserAdmin(OrganizerOnlyMixin, UserAdmin):
    """Organizers create and manage annotator and adjudicator accounts; organizer, staff and
    superuser accounts, and the roles and rights that make one, are a superuser's."""

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request) and (obj is None or may_manage(request.user, obj))

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_change_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        if request.user.is_superuser:
            return super().get_readonly_fields(request, obj)
        return ["is_staff", "is_superuser", "user_permissions", "last_login", "date_joined"]

    def formfield_for_manytomany(self, db_field, request: HttpRequest, **kwargs):
        if db_field.name == "groups" and not request.user.is_superuser:
            kwargs["queryset"] = Group.objects.filter(name__in=ACCOUNT_ROLES)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


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
