"""The annotator's filter of their own answers ("My answers")."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Annotation, Dataset


class OwnAnswersFilter(forms.Form):
    """The filter of the "My answers" page (GET): one dataset, one status, or all."""

    dataset = forms.ModelChoiceField(label=_("Dataset"), queryset=Dataset.objects.none(), required=False,
                                     empty_label=_("all"))
    status = forms.ChoiceField(label=_("Status"), choices=[("", _("all")), *Annotation.Status.choices],
                               required=False)

    def __init__(self, *args, datasets, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dataset"].queryset = datasets
