"""Forms of the organizer pages (and the annotator's answer filter). What the data must
satisfy is checked by the services."""

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.contrib.auth.models import User
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.limits import MAX_COMMENT
from annotation.models import SUBTASK_CHOICES, Annotation, Dataset
from annotation.roles import ADJUDICATOR, ANNOTATOR


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


class OwnAnswersFilter(forms.Form):
    """The filter of the "My answers" page (GET): one dataset, one status, or all."""

    dataset = forms.ModelChoiceField(label=_("Dataset"), queryset=Dataset.objects.none(), required=False,
                                     empty_label=_("all"))
    status = forms.ChoiceField(label=_("Status"), choices=[("", _("all")), *Annotation.Status.choices],
                               required=False)

    def __init__(self, *args, datasets, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dataset"].queryset = datasets


ACCOUNT_ROLE_CHOICES = [(ANNOTATOR, _("annotator")), (ADJUDICATOR, _("adjudicator"))]


class AccountForm(forms.Form):
    name = forms.CharField(label=_("Login name"), max_length=User._meta.get_field("username").max_length)
    email = forms.EmailField(label=_("E-mail (optional)"), required=False)
    role = forms.ChoiceField(label=_("Role"), choices=ACCOUNT_ROLE_CHOICES)


class AccountsCsvForm(forms.Form):
    accounts = forms.FileField(label=_("CSV file: one account a line, login name and e-mail"))
    role = forms.ChoiceField(label=_("Role"), choices=ACCOUNT_ROLE_CHOICES)


class QualificationForm(forms.Form):
    threshold = forms.FloatField(
        label=_("Qualification threshold"), required=False, min_value=0, max_value=1,
        help_text=_("The least training score (a share, e.g. 0.8) that opens the dataset's items; also the "
                    "control accuracy below which an annotator is flagged. Empty: finishing the round is enough."),
    )
    control_rate = forms.IntegerField(
        label=_("One control item in"), min_value=0, initial=0,
        help_text=_("Positions of each queue per control item, e.g. 20 (0: no control items). Applies to "
                    "items assigned from now on."),
    )
    control_seed = forms.CharField(label=_("Seed of the interleaving"), required=False, max_length=100)

    def clean_control_rate(self) -> int:
        rate = self.cleaned_data["control_rate"]
        if rate == 1:
            raise forms.ValidationError(_("One control item in N positions needs N of at least 2 (0: none)."))
        return rate


class PoolForm(forms.Form):
    kind = forms.ChoiceField(label=_("Pool"), choices=Dataset.PoolKind.choices)
    inputs = forms.FileField(label=_("Inputs (JSONL)"))
    gold = forms.FileField(label=_("Gold (JSONL, with an optional explanation per line)"))


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
