"""Forms of the report pages: a model submission upload, a new campaign."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.core.files import UploadField
from annotation.models import Campaign, Dataset


class ModelSubmissionForm(forms.Form):
    name = forms.CharField(label=_("Model name"), max_length=100)
    submission = UploadField(label=_("Submission (JSONL, every item answered)"))


class CampaignForm(forms.Form):
    name = forms.CharField(label=_("Campaign name"), max_length=100)
    datasets = forms.ModelMultipleChoiceField(
        label=_("Datasets (one per subtask)"),
        # Training and control pools are parts of their dataset, never a campaign's own.
        queryset=Dataset.objects.filter(archived_at__isnull=True, pool_of__isnull=True).order_by("subtask", "name"),
        widget=forms.CheckboxSelectMultiple,
    )
    human_source = forms.ChoiceField(label=_("Human source beside the models"), choices=Campaign.HumanSource.choices,
                                     initial=Campaign.HumanSource.MAJORITY_FILLED)
