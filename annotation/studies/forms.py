"""Forms of the organizer's study pages: a study's settings, its datasets in order (each with its
quota), the state buttons, the panel's export to reconcile with, and the payment file asked for."""

from django import forms
from django.core.validators import MinValueValidator
from django.utils.translation import gettext_lazy as _

from annotation.core.files import UploadField
from annotation.models import Campaign, Dataset, Study
from annotation.studies.selectors import PAYMENT_FILES
from annotation.studies.services import SETTINGS, Step

# Rows for datasets beyond those a study has (a campaign has one dataset per subtask: six).
EXTRA_STEPS = 3


# The set-up form's labels and widgets where the model's names say too little.
LABELS = {
    "campaign": _("Campaign (for several datasets in order; none: one dataset)"),
    "consent": _("Consent text (Polish): what is kept and what is released"),
    "return_link": _("Return link ({code} is replaced by the participant's code)"),
    "participant_id_pattern": _("Participant id format (a regular expression the whole id matches)"),
    "panel_study_id": _("The panel's study id (empty: not checked)"),
    "test_ids": _("Preview and test ids, one a line (admitted, never counted)"),
    "pay_currency": _("Currency (e.g. GBP)"),
    "minimum_hourly_rate": _("Minimum hourly rate (a warning below it)"),
    "bonus_amount": _("Bonus amount (per control item right, or once at the threshold)"),
    "bonus_threshold": _("Control accuracy for the bonus (a share between 0 and 1)"),
    "attention_items": _("Attention checks: control item ids, one a line"),
    "attention_failures": _("Failed attention checks that put a participant on the list to review"),
}
WIDGETS = {
    "consent": forms.Textarea(attrs={"rows": 6}),
    "test_ids": forms.Textarea(attrs={"rows": 3}),
    "attention_items": forms.Textarea(attrs={"rows": 3}),
}
# The smallest value of the settings that have one (the model's checks).
MINIMUM = {"deadline_minutes": 1, "pay_amount": 0, "minimum_hourly_rate": 0}


class StudyForm(forms.Form):
    """Every setting of a study, each field as the model has it (a plain form: what needs more
    than one field, the name's uniqueness and the datasets' routing are the service's checks)."""

    def __init__(self, data=None, study: Study | None = None):
        super().__init__(data, initial=None if study is None else forms.model_to_dict(study, fields=SETTINGS))
        self.fields.update(forms.fields_for_model(Study, fields=SETTINGS, labels=LABELS, widgets=WIDGETS))
        self.fields["campaign"].queryset = Campaign.objects.order_by("name")
        for name, least in MINIMUM.items():
            self.fields[name].validators.append(MinValueValidator(least))
            self.fields[name].widget.attrs["min"] = least


class StepForm(forms.Form):
    dataset = forms.ModelChoiceField(
        label=_("Dataset"),
        # Training and control pools are parts of their dataset, never a study's own.
        queryset=Dataset.objects.filter(archived_at__isnull=True, pool_of__isnull=True).order_by("name"),
    )
    quota = forms.IntegerField(label=_("Items per participant"), min_value=1)


StepFormSet = forms.formset_factory(StepForm, extra=EXTRA_STEPS)


def step_forms(study: Study | None, data=None):
    """The datasets' rows: the study's steps, then empty ones."""
    if data is not None or study is None:
        return StepFormSet(data, prefix="steps")
    return StepFormSet(initial=[{"dataset": step.dataset_id, "quota": step.quota} for step in study.steps.all()],
                       prefix="steps")


def steps_of(formset) -> list[Step]:
    """The filled rows of a valid formset, in order."""
    return [Step(form.cleaned_data["dataset"], form.cleaned_data["quota"])
            for form in formset.forms if form.cleaned_data]


class StateForm(forms.Form):
    state = forms.ChoiceField(choices=Study.State.choices)


class ReconcileForm(forms.Form):
    export = UploadField(label=_("The panel's submissions export (Prolific's CSV)"))


class DownloadForm(forms.Form):
    download = forms.ChoiceField(required=False, choices=[(kind, kind) for kind in PAYMENT_FILES])
