"""Forms of the report pages: a model submission upload, a new campaign, a campaign's protocol and
the options of its paper kit and release bundle."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.core.files import UploadField
from annotation.models import Campaign, CampaignProtocol, Dataset


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


class CampaignProtocolForm(forms.ModelForm):
    """What only the organizer knows of a campaign, as its paper states it."""

    class Meta:
        model = CampaignProtocol
        fields = ["recruitment", "pay_amount", "pay_currency", "pay_basis", "consent", "demographics"]
        labels = {
            "recruitment": _("How the annotators were recruited"),
            "pay_amount": _("Pay"),
            "pay_currency": _("Currency (e.g. PLN)"),
            "pay_basis": _("Paid"),
            "consent": _("How consent was obtained"),
            "demographics": _("Demographics collected (if any)"),
        }
        widgets = {name: forms.Textarea(attrs={"rows": 3}) for name in ("recruitment", "consent", "demographics")}

    def clean(self):
        data = super().clean()
        if data.get("pay_amount") is not None and not data.get("pay_basis"):
            self.add_error("pay_basis", _("Say whether the pay is per participant or per hour."))
        return data


class KitOptions(forms.Form):
    """The options of a paper kit or release bundle downloaded from the campaign page."""

    seed = forms.IntegerField(required=False, min_value=0, max_value=2**63 - 1)
    with_free_text = forms.BooleanField(required=False, label=_("With the free text people wrote (to review)"))
    with_gold = forms.BooleanField(required=False, label=_("With the gold"))
