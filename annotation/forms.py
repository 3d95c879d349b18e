"""Forms of the organizer pages. What the data must satisfy is checked by the services."""

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.contrib.auth.models import User
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.limits import MAX_COMMENT
from annotation.models import SUBTASK_CHOICES, Dataset
from annotation.roles import ANNOTATOR


def upload_limit_sentence() -> str:
    """The sentence the upload pages state, and refuse a larger file with."""
    return gettext(
        "The largest file this page takes is %(size)s; import a larger one with the command "
        "“manage.py import_items” (see the README)."
    ) % {"size": filesizeformat(settings.POLIS_MAX_UPLOAD_BYTES)}


class UploadField(forms.FileField):
    """A file field stating the upload limit; static/annotation/upload_limit.js refuses a
    larger file in the browser before it is sent, the view refuses it from its Content-Length."""

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", lazy(upload_limit_sentence, str)())
        super().__init__(**kwargs)

    def widget_attrs(self, widget):
        return {
            **super().widget_attrs(widget),
            "data-max-bytes": lazy(lambda: str(settings.POLIS_MAX_UPLOAD_BYTES), str)(),
            "data-too-large": lazy(upload_limit_sentence, str)(),
        }


class ImportForm(forms.Form):
    name = forms.CharField(
        label=_("Dataset name"), max_length=Dataset._meta.get_field("name").max_length
    )
    subtask = forms.ChoiceField(label=_("Subtask"), choices=SUBTASK_CHOICES)
    inputs = UploadField(label=_("Inputs (JSONL)"))
    gold = UploadField(label=_("Gold (JSONL, optional)"), required=False)
    gold_synthetic = forms.BooleanField(
        label=_("The gold is synthetic (for testing only; no score is ever reported)"), required=False
    )


class GoldForm(forms.Form):
    gold = UploadField(label=_("Gold (JSONL)"))
    gold_synthetic = forms.BooleanField(
        label=_("The gold is synthetic (for testing only; no score is ever reported)"), required=False
    )


class AssignForm(forms.Form):
    annotators = forms.ModelMultipleChoiceField(
        label=_("Annotators"),
        queryset=User.objects.filter(groups__name=ANNOTATOR, is_active=True).order_by("username"),
        widget=forms.CheckboxSelectMultiple,
    )
    per_item = forms.IntegerField(label=_("Annotators per item"), min_value=1, initial=3)


class ReleaseForm(forms.Form):
    departed = forms.ModelChoiceField(label=_("Annotator who left"), queryset=User.objects.none())

    def __init__(self, *args, dataset: Dataset, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["departed"].queryset = (
            User.objects.filter(assignments__dataset=dataset).distinct().order_by("username")
        )


class ResolveFlagForm(forms.Form):
    note = forms.CharField(
        label=_("Resolution note"), widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=MAX_COMMENT
    )
    withdraw = forms.BooleanField(label=_("Withdraw the item (it is broken)"), required=False)


class AdjudicationSettingsForm(forms.ModelForm):
    class Meta:
        model = Dataset
        fields = ["auto_majority", "adjudicators_see_names", "gold_revealed"]


class ModelSubmissionForm(forms.Form):
    name = forms.CharField(label=_("Model name"), max_length=100)
    submission = forms.FileField(label=_("Submission (JSONL, every item answered)"))


class CampaignForm(forms.Form):
    name = forms.CharField(label=_("Campaign name"), max_length=100)
    datasets = forms.ModelMultipleChoiceField(
        label=_("Datasets (one per subtask)"),
        queryset=Dataset.objects.order_by("subtask", "name"),
        widget=forms.CheckboxSelectMultiple,
    )
