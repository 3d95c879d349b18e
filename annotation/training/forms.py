"""Forms of the organizer's training page: the qualification and control settings, a pool upload."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.core.files import UploadField
from annotation.models import Dataset


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
    inputs = UploadField(label=_("Inputs (JSONL)"))
    gold = UploadField(label=_("Gold (JSONL, with an optional explanation per line)"))
    replace = forms.BooleanField(
        label=_("Replace the pool of this kind (only while no one has started it)"), required=False
    )
