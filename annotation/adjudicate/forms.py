"""The adjudication settings of a dataset (on its organizer page)."""

from django import forms

from annotation.models import Dataset


class AdjudicationSettingsForm(forms.ModelForm):
    class Meta:
        model = Dataset
        fields = ["auto_majority", "adjudicators_see_names", "gold_revealed"]
