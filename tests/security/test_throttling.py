"""Logins and tokens: wrong passwords lock a user name out from an address (django-axes,
counted in the database, so every worker and instance sees them), token requests are
throttled (DRF, counted in the database cache), tokens expire and organizers revoke them."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token

from tests.factories import DEFAULT_PASSWORD, make_user

pytestmark = pytest.mark.django_db


def log_in(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


@override_settings(AXES_FAILURE_LIMIT=5)
def test_wrong_passwords_on_the_login_form_lock_the_user_name_out_from_that_address():
    user = make_user("annotator")
    for _ in range(4):
        assert log_in(Client(), user.username, "wrong").status_code == 200  # the form again
    assert log_in(Client(), user.username, "wrong").status_code == 429  # the fifth locks out
    # Another client (another worker would be the same: the count is in the database).
    response = log_in(Client(), user.username, DEFAULT_PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    # Another address is not locked out.
    assert log_in(Client(REMOTE_ADDR="10.1.2.3"), user.username, DEFAULT_PASSWORD).status_code == 302


@override_settings(AXES_FAILURE_LIMIT=5)
def test_a_right_password_before_the_limit_resets_the_count():
    user = make_user("annotator")
    for _ in range(4):
        log_in(Client(), user.username, "wrong")
    assert log_in(Client(), user.username, DEFAULT_PASSWORD).status_code == 302
    for _ in range(4):
        log_in(Client(), user.username, "wrong")
    assert log_in(Client(), user.username, DEFAULT_PASSWORD).status_code == 302


@override_settings(AXES_FAILURE_LIMIT=5)
def test_wrong_passwords_on_the_token_endpoint_count_towards_the_lock_out():
    user = make_user("annotator")
    client = Client()
    for _ in range(5):
        assert client.post("/api/token/", {"username": user.username, "password": "wrong"}).status_code == 400
    # Locked out: the right password is refused too (Django's authenticate() stops at the lock-out).
    response = client.post("/api/token/", {"username": user.username, "password": DEFAULT_PASSWORD})
    assert response.status_code == 400
    assert not Token.objects.exists()


def test_token_requests_are_throttled_per_address():
    user = make_user("annotator")
    client = Client(REMOTE_ADDR="10.9.9.9")
    statuses = [
        client.post("/api/token/", {"username": user.username, "password": DEFAULT_PASSWORD}).status_code
        for _ in range(11)
    ]
    assert statuses == [200] * 10 + [429]
    assert Client(REMOTE_ADDR="10.9.9.8").post(
        "/api/token/", {"username": user.username, "password": DEFAULT_PASSWORD}
    ).status_code == 200


def token_client(key: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {key}")


def refused(response) -> bool:
    # DRF answers 403 rather than 401 when session authentication comes first.
    return response.status_code in (401, 403)


@override_settings(POLIS_TOKEN_LIFETIME=timedelta(days=30))
def test_a_token_expires_and_asking_again_gives_a_new_one():
    user = make_user("annotator")
    key = Client().post("/api/token/", {"username": user.username, "password": DEFAULT_PASSWORD}).json()["token"]
    assert token_client(key).get("/api/datasets/").status_code == 200
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    response = token_client(key).get("/api/datasets/")
    assert refused(response) and "expired" in response.json()["detail"]
    new_key = Client().post("/api/token/", {"username": user.username, "password": DEFAULT_PASSWORD}).json()["token"]
    assert new_key != key
    assert token_client(new_key).get("/api/datasets/").status_code == 200


def test_an_organizer_revokes_tokens_with_the_command_and_in_the_admin():
    user = make_user("annotator")
    key = Token.objects.create(user=user).key
    call_command("revoke_tokens", user.username)
    assert refused(token_client(key).get("/api/datasets/"))
    key = Token.objects.create(user=user).key
    organizer = make_user("organizer")  # staff, not a superuser
    admin = Client()
    admin.force_login(organizer)
    response = admin.post(f"/admin/authtoken/tokenproxy/{user.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert refused(token_client(key).get("/api/datasets/"))


@override_settings(AXES_FAILURE_LIMIT=3)
def test_an_organizer_lifts_a_lock_out_in_the_admin():
    user = make_user("annotator")
    for _ in range(3):
        log_in(Client(), user.username, "wrong")
    assert log_in(Client(), user.username, DEFAULT_PASSWORD).status_code == 429
    attempt = AccessAttempt.objects.get(username=user.username)
    admin = Client()
    admin.force_login(make_user("organizer"))
    response = admin.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert log_in(Client(), user.username, DEFAULT_PASSWORD).status_code == 302
