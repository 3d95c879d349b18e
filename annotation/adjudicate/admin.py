"""Admin pages of the adjudications and their revisions: read only, deleted by superusers only."""

from django.contrib import admin

from annotation.core.admin import HistoryAdmin
from annotation.models import Adjudication, AdjudicationRevision


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
