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


def test_a_csv_over_the_in_memory_size_is_read_from_its_temporary_file(organizer_client, settings):
    """Over FILE_UPLOAD_MAX_MEMORY_SIZE (2.5 MiB) Django keeps the upload in a temporary file."""
    rows = "".join(f"osoba-{n}-{'o' * 130},{'x' * 230}-{n}@example.org\n" for n in range(7_000))
    assert len(rows.encode()) > settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    page = organizer_client.post(URL, {"action": "csv", "role": "annotator", "accounts": _upload("duzo.csv", rows)})
    assert page.status_code == 200
    assert User.objects.filter(username__startswith="osoba-").count() == 7_000


def test_a_csv_of_more_accounts_than_one_query_can_name_is_made_in_batches():
    """65,536 rows: more than PostgreSQL's 65,535 parameters of one statement."""
    rows = "".join(f"n{n},\n" for n in range(65_536)).encode()
    made = create_accounts_from_csv(source=SourceFile("a.csv", rows), role="annotator")
    assert len(made) == 65_536
    assert User.objects.filter(groups__name="annotator", username__startswith="n").count() == 65_536
    assert not User.objects.get(username="n65535").has_usable_password()
    # And a name taken among them is found.
    with pytest.raises(Refused) as refused:
        create_accounts_from_csv(source=SourceFile("b.csv", b"nowy,\nn65535,\n"), role="annotator")
    assert [(p.line, p.code) for p in refused.value.problems] == [(2, "exists")]


@pytest.mark.parametrize("bad", ["a\x00b,", "ala,a\x00@example.org", "\x00,"])
def test_a_nul_in_the_csv_is_refused_with_its_line(organizer_client, bad):
    page = organizer_client.post(URL, {"action": "csv", "role": "annotator",
                                       "accounts": _upload("nul.csv", f"ola,\n{bad}\n")})
    assert page.status_code == 422
    assert [(p.file, p.line) for p in page.context["problems"]] == [("nul.csv", 2)]
    assert "U+0000" in page.content.decode()
    assert not User.objects.filter(username="ola").exists()


def test_a_csv_not_in_utf8_names_the_line():
    with pytest.raises(Refused) as refused:
        create_accounts_from_csv(source=SourceFile("a.csv", "ala,\nżaba,\n".encode("iso-8859-2")), role="annotator")
    assert [(p.file, p.line, p.code) for p in refused.value.problems] == [("a.csv", 2, "encoding")]
    assert not User.objects.filter(username="ala").exists()


@pytest.mark.parametrize(("bad", "field", "code"), [
    (f"ala,{'x' * 250}@example.org", "email", "too_long"),  # validate_email passes it; the column is 254
    ("ala," + "x" * 200_000, "line", "csv"),  # past the csv module's cell limit
])
def test_a_row_the_database_or_the_csv_reader_cannot_take_is_refused_with_its_line(bad, field, code):
    with pytest.raises(Refused) as refused:
        create_accounts_from_csv(source=SourceFile("a.csv", f"ola,\n{bad}\n".encode()), role="annotator")
    assert [(p.line, p.field, p.code) for p in refused.value.problems] == [(2, field, code)]
    assert not User.objects.filter(username="ola").exists()


def _session_and_token(user: User) -> tuple[Client, Client]:
    from rest_framework.authtoken.models import Token

    session = Client()
    session.force_login(user)
    return session, Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")


def _works(session: Client, token: Client) -> tuple[bool, bool]:
    return session.get(reverse("api_datasets")).status_code == 200, token.get(reverse("api_datasets")).status_code == 200


def test_deactivation_deletes_the_sessions_and_tokens_so_activation_does_not_bring_them_back(organizer_client):
    from django.contrib.sessions.models import Session
    from rest_framework.authtoken.models import Token

    leaving, other = make_user("annotator"), make_user("annotator")
    session, token = _session_and_token(leaving)
    others = _session_and_token(other)
    assert _works(session, token) == (True, True)
    organizer_client.post(URL, {"action": "deactivate", "user": leaving.pk})
    assert not Token.objects.filter(user=leaving).exists()
    organizer_client.post(URL, {"action": "activate", "user": leaving.pk})
    leaving.refresh_from_db()
    assert leaving.is_active
    assert _works(session, token) == (False, False)
    assert _works(*others) == (True, True)  # nobody else's
    assert Session.objects.count() == 2  # the organizer's and the other annotator's


def test_deactivation_in_the_admin_deletes_them_too(organizer_client):
    leaving = make_user("annotator")
    session, token = _session_and_token(leaving)
    admin = Client()
    admin.force_login(User.objects.get(username="olga"))
    change = reverse("admin:auth_user_change", args=[leaving.pk])
    form = admin.get(change).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update(is_active="", groups=[group.pk for group in leaving.groups.all()], user_permissions=[],
                date_joined_0=leaving.date_joined.strftime("%Y-%m-%d"), date_joined_1="00:00:00")
    data = {key: value for key, value in data.items() if key not in ("date_joined", "last_login")}
    response = admin.post(change, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    leaving.refresh_from_db()
    assert not leaving.is_active
    leaving.is_active = True
    leaving.save()
    assert _works(session, token) == (False, False)


def test_a_password_set_at_a_one_time_link_ends_the_old_sessions_and_the_token(organizer_client):
    user = make_user("annotator")
    session, token = _session_and_token(user)
    link = link_in(organizer_client.post(URL, {"action": "link", "user": user.pk}).content.decode())
    person = Client()
    form = person.get(link, follow=True)
    person.post(form.redirect_chain[-1][0], {"new_password1": "Zupełnie-nowe-hasło-7",
                                             "new_password2": "Zupełnie-nowe-hasło-7"})
    assert _works(session, token) == (False, False)


def test_a_password_changed_by_its_owner_keeps_their_own_session_and_ends_the_others_and_the_token():
    from tests.factories import DEFAULT_PASSWORD

    user = make_user("annotator")
    other_session, token = _session_and_token(user)
    own = Client()
    own.force_login(user)
    response = own.post(reverse("password_change"), {
        "old_password": DEFAULT_PASSWORD, "new_password1": "Zupełnie-nowe-hasło-7", "new_password2": "Zupełnie-nowe-hasło-7"})
    assert response.status_code == 302
    assert own.get(reverse("api_datasets")).status_code == 200
    assert _works(other_session, token) == (False, False)
