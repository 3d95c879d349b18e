"""The adjudication settings of a dataset (on its organizer page), the gold audit's by adjudicators among them."""

from django import forms

from annotation.models import Dataset


class AdjudicationSettingsForm(forms.ModelForm):
    class Meta:
        model = Dataset
        fields = ["auto_majority", "adjudicators_see_names", "gold_revealed", "adjudicators_audit_gold"]
