"""A one-time password link: its page names the account, and setting the password logs the
person in (no second login with what they just typed)."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_user
from tests.organizer.test_accounts import URL, link_in

pytestmark = pytest.mark.django_db


def test_the_link_names_the_account_and_setting_the_password_logs_in(client):
    client.force_login(make_user("organizer", username="olga"))
    page = client.post(URL, {"action": "create", "name": "ewa", "email": "", "role": "annotator"})
    person = Client()
    form = person.get(link_in(page.content.decode()), follow=True)
    html = form.content.decode()
    assert '<p id="login-name">Your login name: <strong>ewa</strong></p>' in html
    assert 'name="username" value="ewa" autocomplete="username"' in html
    done = person.post(form.redirect_chain[-1][0], {"new_password1": "Zupełnie-nowe-hasło-7",
                                                    "new_password2": "Zupełnie-nowe-hasło-7"}, follow=True)
    assert done.context["user"].get_username() == "ewa"
    assert "you are logged in as ewa" in done.content.decode()
    assert person.get(reverse("home")).status_code == 200  # the start page, no login asked
