"""Accounts made by organizers: one by one and from CSV, a one-time password link, deactivation
and the release of the unanswered items, the list by role."""

import re

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.accounts.services import create_account, create_accounts_from_csv
from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.models import Assignment
from tests.factories import make_dataset, make_user

URL = reverse("organizer_accounts")
pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer_client(client):
    client.force_login(make_user("organizer", username="olga"))
    return client


def link_in(html: str) -> str:
    return re.search(r'<code class="password-link">http://testserver(/accounts/reset/[^<]+)</code>', html)[1]


def test_one_account_gets_a_link_that_sets_its_password_once(organizer_client):
    page = organizer_client.post(URL, {"action": "create", "name": "ewa", "email": "ewa@example.org", "role": "annotator"})
    assert page.status_code == 200
    user = User.objects.get(username="ewa")
    assert user.email == "ewa@example.org" and not user.has_usable_password()
    assert list(user.groups.values_list("name", flat=True)) == ["annotator"]
    link = link_in(page.content.decode())
    # Shown once: the list page does not hold it.
    assert link not in organizer_client.get(URL).content.decode()

    person = Client()
    form = person.get(link, follow=True)
    assert form.status_code == 200 and b"new_password1" in form.content
    done = person.post(form.redirect_chain[-1][0], {"new_password1": "Zupełnie-nowe-hasło-7", "new_password2": "Zupełnie-nowe-hasło-7"}, follow=True)
    assert done.status_code == 200
    logged_in = Client().post(reverse("login"), {"username": "ewa", "password": "Zupełnie-nowe-hasło-7"})
    assert logged_in.status_code == 302 and logged_in.url == "/"
    # The link worked once.
    again = Client().get(link, follow=True)
    assert b"new_password1" not in again.content and b"no longer works" in again.content


def test_csv_makes_every_account_or_none_with_line_and_field(organizer_client):
    make_user("annotator", username="zajety")
    bad = "name,email\nala,ala@example.org\nzajety,z@example.org\nala,ala2@example.org\nbez maila?,nie-mail\njedna-kolumna\n"
    page = organizer_client.post(URL, {"action": "csv", "role": "adjudicator", "accounts": _upload("ludzie.csv", bad)})
    assert page.status_code == 422
    problems = {(p.line, p.field, p.code) for p in page.context["problems"]}
    assert problems == {
        (3, "name", "exists"), (4, "name", "duplicate"), (5, "name", "invalid"), (5, "email", "email"), (6, "line", "columns"),
    }
    assert all(p.file == "ludzie.csv" for p in page.context["problems"])
    assert not User.objects.filter(username="ala").exists()

    good = "name,email\nala,ala@example.org\nola,\n"
    page = organizer_client.post(URL, {"action": "csv", "role": "adjudicator", "accounts": _upload("ludzie.csv", good)})
    assert page.status_code == 200
    assert set(User.objects.filter(groups__name="adjudicator").values_list("username", flat=True)) == {"ala", "ola"}
    assert page.content.decode().count('class="password-link"') == 2


def test_csv_problems_name_the_line_of_each_row():
    make_user("annotator", username="zajety")
    with pytest.raises(Refused) as refused:
        create_accounts_from_csv(
            source=SourceFile("a.csv", "ala,ala@example.org\nzajety,\nala,\nzla nazwa,x\n".encode()), role="annotator"
        )
    assert {(p.line, p.field, p.code) for p in refused.value.problems} == {
        (2, "name", "exists"), (3, "name", "duplicate"), (4, "name", "invalid"), (4, "email", "email"),
    }
    assert {str(p).split(":")[0] for p in refused.value.problems} == {"a.csv"}
    with pytest.raises(Refused) as refused:
        create_accounts_from_csv(source=SourceFile("b.csv", b"ala;ala@example.org\n"), role="annotator")
    assert [(p.line, p.code) for p in refused.value.problems] == [(1, "columns")]
    with pytest.raises(Refused):
        create_account(name="x", email="", role="organizer")  # organizers are not made here
    assert not User.objects.filter(username__in=["ala", "x"]).exists()


def test_deactivated_annotator_cannot_log_in_and_their_unanswered_items_are_released(organizer_client):
    leaving, staying = make_user("annotator", username="odchodzi"), make_user("annotator", username="zostaje")
    dataset = make_dataset(
        "wsd", [{"id": f"w{n}", "reference_sentence": "x", "candidates": {}} for n in range(4)], name="wsd-konta"
    )
    items = list(dataset.items.order_by("ordinal"))
    for position, item in enumerate(items[:3], start=1):
        Assignment.objects.create(dataset=dataset, item=item, annotator=leaving, position=position)
    Assignment.objects.create(dataset=dataset, item=items[3], annotator=staying, position=1)
    session = Client()
    session.force_login(leaving)
    page = organizer_client.get(URL).content.decode()
    assert f'data-account="{leaving.username}"' in page and f"{dataset.name}: 3" in page

    organizer_client.post(URL, {"action": "deactivate", "user": leaving.pk})
    leaving.refresh_from_db()
    assert not leaving.is_active
    assert session.get(reverse("home")).status_code == 302  # the open session ends too
    organizer_client.post(URL, {"action": "release", "user": leaving.pk, "dataset": dataset.pk})
    assert Assignment.objects.filter(annotator=staying).count() == 4
    assert not Assignment.objects.filter(annotator=leaving).exists()


def test_accounts_are_listed_by_role_in_a_bounded_number_of_queries(organizer_client, django_assert_max_num_queries):
    made = 0
    for count in (2, 30):
        for _ in range(count - made):
            made += 1
            make_user("annotator", username=f"anotator-{made}")
            make_user("adjudicator", username=f"rozjemca-{made}")
        with django_assert_max_num_queries(10):
            page = organizer_client.get(URL)
        roles = dict(page.context["roles"])
        assert len(roles["annotator"]) >= count and len(roles["adjudicator"]) >= count and len(roles["organizer"]) == 1


def test_only_organizers_reach_the_accounts_page(client):
    for role in ("annotator", "adjudicator"):
        client.force_login(make_user(role, username=f"nie-{role}"))
        assert client.get(URL).status_code == 403
        assert client.post(URL, {"action": "create", "name": "x", "role": "annotator"}).status_code == 403
    assert not User.objects.filter(username="x").exists()


def _upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")
