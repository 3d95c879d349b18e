"""Admin pages of panel studies: read only (a study is set up and changed on its organizer's
page, which checks its settings; participants and refused entries are written by the entry
flow only), deleted by superusers only."""

from django.contrib import admin

from annotation.core.admin import HistoryAdmin
from annotation.models import Study, StudyDataset, StudyParticipant, StudyRefusal


@admin.register(Study)
class StudyAdmin(HistoryAdmin):
    list_display = ["name", "state", "campaign", "deadline_minutes", "pay_amount", "pay_currency", "declined", "created_at"]
    list_filter = ["state"]
    search_fields = ["name"]
    list_select_related = ["campaign"]
    # The link's token is the study's secret: the organizer's study page shows the link.
    exclude = ["token"]


@admin.register(StudyDataset)
class StudyDatasetAdmin(HistoryAdmin):
    list_display = ["study", "order", "dataset", "quota"]
    list_filter = ["study", "dataset"]
    search_fields = ["study__name", "dataset__name"]
    list_select_related = ["study", "dataset"]


@admin.register(StudyParticipant)
class StudyParticipantAdmin(HistoryAdmin):
    list_display = ["user", "study", "entered_at", "steps_done", "completed_at", "screened_out_at", "test"]
    list_filter = ["study", "test"]
    search_fields = ["user__username"]
    list_select_related = ["user", "study"]
    # Panel ids are kept apart, for the payment files only.
    exclude = ["panel_id", "panel_session"]


@admin.register(StudyRefusal)
class StudyRefusalAdmin(HistoryAdmin):
    list_display = ["study", "reason", "at"]
    list_filter = ["study", "reason"]
    search_fields = ["study__name"]
    list_select_related = ["study"]
    exclude = ["panel_id", "panel_session"]
