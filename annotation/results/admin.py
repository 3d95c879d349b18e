"""Admin pages of the models' submissions, the campaigns, their protocols and pseudonyms.

A submission is an upload record, checked whole when it was uploaded on the report page: read
only, deleted by superusers only. A campaign is the organizers' grouping of datasets, edited
here as on the campaigns page: one dataset per subtask."""

from django import forms
from django.contrib import admin
from django.db.models.functions import Length
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotation.core.admin import HistoryAdmin, OrganizerOnlyAdmin
from annotation.models import (
    Campaign,
    CampaignProtocol,
    Dataset,
    ModelSubmission,
    Pseudonym,
    StoredReport,
    StoredReportPart,
)


@admin.register(ModelSubmission)
class ModelSubmissionAdmin(HistoryAdmin):
    list_display = ["name", "dataset", "filename", "size", "uploaded_by", "uploaded_at"]
    list_filter = ["dataset__subtask", ("dataset", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "filename", "dataset__name"]
    list_select_related = ["dataset", "uploaded_by"]

    def get_queryset(self, request: HttpRequest):
        # The file itself may be megabytes: the pages show its size, never load it.
        return super().get_queryset(request).defer("data").annotate(data_size=Length("data"))

    @admin.display(description=_("size (bytes)"), ordering="data_size")
    def size(self, submission: ModelSubmission) -> int:
        return submission.data_size


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["name", "datasets", "human_source"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Training and control pools are parts of their dataset, never a campaign's own
        # (archived datasets stay: a campaign made before the archiving keeps them).
        self.fields["datasets"].queryset = Dataset.objects.filter(pool_of__isnull=True)

    def clean_datasets(self):
        datasets = self.cleaned_data["datasets"]
        seen: dict[str, str] = {}
        problems = []
        for dataset in datasets.order_by("name"):
            if dataset.subtask in seen:
                problems.append(
                    _("%(first)s and %(second)s are both %(subtask)s datasets: a campaign has one dataset per subtask.")
                    % {"first": seen[dataset.subtask], "second": dataset.name, "subtask": dataset.subtask}
                )
            seen.setdefault(dataset.subtask, dataset.name)
        if problems:
            raise forms.ValidationError(problems)
        return datasets


@admin.register(Campaign)
class CampaignAdmin(OrganizerOnlyAdmin):
    form = CampaignForm
    list_display = ["name", "dataset_names", "human_source", "created_by", "created_at"]
    list_filter = ["datasets__subtask", ("datasets", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "datasets__name"]
    list_select_related = ["created_by"]
    filter_horizontal = ["datasets"]
    readonly_fields = ["created_by", "created_at"]

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).prefetch_related("datasets")

    @admin.display(description=_("datasets"))
    def dataset_names(self, campaign: Campaign) -> str:
        return ", ".join(sorted(dataset.name for dataset in campaign.datasets.all()))

    def save_model(self, request: HttpRequest, obj: Campaign, form, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(StoredReport)
class StoredReportAdmin(OrganizerOnlyAdmin):
    """Computed reports: derived from the data, so read only; an organizer may delete one (the
    next view or "compute now" computes it again)."""

    list_display = ["__str__", "dataset", "campaign", "seed", "exclude_below_control", "status", "requested_at",
                    "started_at", "computed_at"]
    list_filter = ["status", "exclude_below_control", ("dataset", admin.RelatedOnlyFieldListFilter),
                   ("campaign", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["dataset__name", "campaign__name", "version"]
    list_select_related = ["dataset", "campaign"]
    fields = ["dataset", "campaign", "version", "seed", "exclude_below_control", "status", "error", "seen",
              "requested_at", "started_at", "computed_at"]
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest):
        # The report and its plots may be megabytes: the pages never load them.
        return super().get_queryset(request).defer("report", "plots")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(StoredReportPart)
class StoredReportPartAdmin(OrganizerOnlyAdmin):
    """What a computed report serves (downloads, plots, page bodies, API JSON): read only."""

    list_display = ["stored", "kind", "key"]
    list_filter = ["kind"]
    search_fields = ["key", "stored__dataset__name", "stored__campaign__name"]
    list_select_related = ["stored__dataset", "stored__campaign"]
    readonly_fields = ["stored", "kind", "key", "content"]

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Pseudonym)
class PseudonymAdmin(HistoryAdmin):
    """A pseudonym, once given, names its person in every paper and release of the campaign:
    read only (the paper kit and the release bundle give them)."""

    list_display = ["label", "campaign", "user", "created_at"]
    list_filter = [("campaign", admin.RelatedOnlyFieldListFilter), "created_at"]
    search_fields = ["campaign__name", "user__username"]
    list_select_related = ["campaign", "user"]

    @admin.display(description="pseudonym", ordering="number")
    def label(self, pseudonym: Pseudonym) -> str:
        return pseudonym.label


@admin.register(CampaignProtocol)
class CampaignProtocolAdmin(OrganizerOnlyAdmin):
    """What only the organizer knows of a campaign (its page's protocol form edits the same)."""

    list_display = ["campaign", "pay_amount", "pay_currency", "pay_basis", "updated_by", "updated_at"]
    list_filter = ["pay_basis", ("campaign", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["campaign__name", "recruitment", "consent", "demographics"]
    list_select_related = ["campaign", "updated_by"]
    readonly_fields = ["updated_by", "updated_at"]

    def save_model(self, request: HttpRequest, obj: CampaignProtocol, form, change: bool) -> None:
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)
