"""Forms of the organizer's dataset pages: import, gold, assignment, release, flags. What the
data must satisfy is checked by the services."""

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from annotation.core.files import UploadField
from annotation.core.roles import ANNOTATOR
from annotation.models import Dataset
from annotation.subtasks.limits import MAX_COMMENT
from scoring.subtasks import SUBTASKS


def subtask_choices() -> list[tuple[str, str]]:
    """The registry's keys, read when the form is drawn (a subtask added later is listed)."""
    return [(key, key) for key in SUBTASKS]


class ImportForm(forms.Form):
    name = forms.CharField(
        label=_("Dataset name"), max_length=Dataset._meta.get_field("name").max_length
    )
    subtask = forms.ChoiceField(label=_("Subtask"), choices=subtask_choices)
    inputs = UploadField(label=_("Inputs (JSONL)"))
    gold = UploadField(label=_("Gold (JSONL, optional)"), required=False)
    gold_synthetic = forms.BooleanField(
        label=_("The gold is synthetic (for testing only; no score is ever reported)"), required=False
    )
    gold_partial = forms.BooleanField(
        label=_("The gold is partial: it leaves some items without gold, to be added later"), required=False
    )


class GoldForm(forms.Form):
    gold = UploadField(label=_("Gold (JSONL)"))
    gold_synthetic = forms.BooleanField(
        label=_("The gold is synthetic (for testing only; no score is ever reported)"), required=False
    )
    partial = forms.BooleanField(
        label=_("The gold is partial: it leaves some items without gold, to be added later"), required=False
    )


class AssignForm(forms.Form):
    annotators = forms.ModelMultipleChoiceField(
        label=_("Annotators"),
        queryset=User.objects.filter(groups__name=ANNOTATOR, is_active=True).order_by("username"),
        widget=forms.CheckboxSelectMultiple,
    )
    per_item = forms.IntegerField(label=_("Annotators per item"), min_value=1, initial=3)


class SampleForm(forms.Form):
    size = forms.IntegerField(label=_("Sample size (n)"), min_value=0)
    seed = forms.IntegerField(label=_("Seed"), min_value=0, initial=0)
    field = forms.CharField(label=_("Stratify by field (optional)"), required=False, max_length=200)


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


class RoutingForm(forms.Form):
    mode = forms.ChoiceField(
        label=_("Which items each annotator gets"),
        choices=[("fixed", _("Fixed queues: each annotator's assigned items, in their own order")),
                 ("routing", _("Routing: the next item to whoever asks, until each item has k answers"))],
        widget=forms.RadioSelect,
    )
    answers_per_item = forms.IntegerField(label=_("Answers per item (k)"), min_value=1, required=False)
    reservation_minutes = forms.IntegerField(label=_("Reservation of an opened item (minutes)"), min_value=1, initial=20)
    pilot_size = forms.IntegerField(label=_("Pilot: the first m items of the sample to every annotator first"),
                                    min_value=0, initial=0)
    pilot_open = forms.BooleanField(label=_("Serve the rest after the pilot"), required=False)
    quota = forms.IntegerField(label=_("Items per annotator at most (empty: no limit)"), min_value=1, required=False)

    @classmethod
    def of_dataset(cls, dataset: Dataset) -> "RoutingForm":
        return cls(initial={
            "mode": "routing" if dataset.routing else "fixed", "answers_per_item": dataset.answers_per_item,
            "reservation_minutes": dataset.reservation_minutes, "pilot_size": dataset.pilot_size,
            "pilot_open": dataset.pilot_open, "quota": dataset.quota,
        })

    def settings(self) -> dict:
        """What set_routing is given: fixed queues take none of routing's settings."""
        data = self.cleaned_data
        if data["mode"] == "fixed":
            return {"routing": False}
        return {"routing": True, "answers_per_item": data["answers_per_item"],
                "reservation_minutes": data["reservation_minutes"] or 20, "pilot_size": data["pilot_size"] or 0,
                "pilot_open": data["pilot_open"], "quota": data["quota"]}
