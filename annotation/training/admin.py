"""Admin pages of the training rounds, their answers and the explanations of training items.

Rounds and their answers are history (answers given): read only, deleted by superusers only.
An explanation is the organizer's text: changed here, or removed; it is written first on the
training page or by the pool's import, which check that its item is a training item."""

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotation.core.admin import HistoryAdmin, OrganizerOnlyAdmin, _is_organizer
from annotation.models import Explanation, TrainingAnswer, TrainingRound


class TrainingAnswerInline(admin.TabularInline):
    model = TrainingAnswer
    fields = ["item", "answer", "correctness", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("item")


@admin.register(TrainingRound)
class TrainingRoundAdmin(HistoryAdmin):
    list_display = ["dataset", "annotator", "attempt", "started_at", "finished_at", "score", "released_at", "released_by"]
    list_filter = [
        "dataset__subtask",
        ("dataset", admin.RelatedOnlyFieldListFilter),
        ("finished_at", admin.EmptyFieldListFilter),
        ("released_at", admin.EmptyFieldListFilter),
    ]
    search_fields = ["dataset__name", "annotator__username"]
    list_select_related = ["dataset", "annotator", "released_by"]
    inlines = [TrainingAnswerInline]


@admin.register(TrainingAnswer)
class TrainingAnswerAdmin(HistoryAdmin):
    list_display = ["item", "annotator", "dataset", "attempt", "correctness", "created_at"]
    list_filter = ["round__dataset__subtask", ("round__dataset", admin.RelatedOnlyFieldListFilter), "created_at"]
    search_fields = ["item__external_id", "round__annotator__username", "round__dataset__name"]
    list_select_related = ["item", "round__dataset", "round__annotator"]

    @admin.display(description=_("annotator"), ordering="round__annotator__username")
    def annotator(self, answer: TrainingAnswer) -> str:
        return answer.round.annotator.get_username()

    @admin.display(description=_("dataset"), ordering="round__dataset__name")
    def dataset(self, answer: TrainingAnswer) -> str:
        return answer.round.dataset.name

    @admin.display(description=_("try"), ordering="round__attempt")
    def attempt(self, answer: TrainingAnswer) -> int:
        return answer.round.attempt


@admin.register(Explanation)
class ExplanationAdmin(OrganizerOnlyAdmin):
    list_display = ["item", "pool", "text"]
    list_filter = ["item__dataset__subtask", ("item__dataset", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["item__external_id", "item__dataset__name", "text"]
    list_select_related = ["item__dataset"]
    readonly_fields = ["item"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Written on the training page or by the pool's import, which check the item is a training item.
        return False

    @admin.display(description=_("training pool"), ordering="item__dataset__name")
    def pool(self, explanation: Explanation) -> str:
        return explanation.item.dataset.name
