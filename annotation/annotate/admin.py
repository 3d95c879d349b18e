"""Admin pages of the answers annotators give: read only, deleted by superusers only."""

from django.contrib import admin
from django.http import HttpRequest

from annotation.core.admin import HistoryAdmin, _is_organizer
from annotation.models import Annotation, AnnotationRevision


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
