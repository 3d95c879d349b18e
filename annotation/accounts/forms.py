"""Forms of the accounts page: one account, or many from a CSV file."""

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from annotation.core.files import UploadField
from annotation.core.roles import ADJUDICATOR, ANNOTATOR

ACCOUNT_ROLE_CHOICES = [(ANNOTATOR, _("annotator")), (ADJUDICATOR, _("adjudicator"))]


class AccountForm(forms.Form):
    name = forms.CharField(label=_("Login name"), max_length=User._meta.get_field("username").max_length)
    email = forms.EmailField(label=_("E-mail (optional)"), required=False)
    role = forms.ChoiceField(label=_("Role"), choices=ACCOUNT_ROLE_CHOICES)


class AccountsCsvForm(forms.Form):
    accounts = UploadField(label=_("CSV file: one account a line, login name and e-mail"))
    role = forms.ChoiceField(label=_("Role"), choices=ACCOUNT_ROLE_CHOICES)

    def __init__(self, *args, **kwargs):
        # Its fields' ids differ from AccountForm's on the same page (both have a "role"), so
        # that each label names its own field.
        kwargs.setdefault("auto_id", "csv_%s")
        super().__init__(*args, **kwargs)
