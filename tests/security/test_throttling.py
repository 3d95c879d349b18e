"""Logins and tokens: wrong passwords lock a user name out from an address (django-axes,
counted in the database, so every worker and instance sees them), token requests are
throttled (DRF, counted in the database cache), tokens expire and organizers revoke them."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
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


def test_a_new_x_forwarded_for_on_each_request_does_not_escape_the_token_throttle():
    """Without a proxy (POLIS_PROXY unset) the header is anybody's word: the address is the
    connection's (DRF's NUM_PROXIES 0), so a made-up X-Forwarded-For per request changes nothing."""
    user = make_user("annotator")
    statuses = [
        Client(REMOTE_ADDR="10.9.7.7", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").post(
            "/api/token/", {"username": user.username, "password": DEFAULT_PASSWORD}
        ).status_code
        for n in range(11)
    ]
    assert statuses == [200] * 10 + [429]


PROXY_SETTINGS = """
import django
django.setup()
from django.conf import settings
from rest_framework.settings import api_settings
print(api_settings.NUM_PROXIES, settings.POLIS_PROXIES)
"""


@pytest.mark.parametrize(("proxy", "expected"), [("", "0 0"), ("0", "0 0"), ("1", "1 1"), ("true", "1 1"), ("2", "2 2")])
def test_the_addresses_trusted_in_x_forwarded_for_are_the_declared_proxies_only(proxy, expected):
    from tests.test_deployment import production_env, run_python

    result = run_python(production_env(ALLOWED_HOSTS="127.0.0.1", POLIS_PROXY=proxy), "-c", PROXY_SETTINGS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


@override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "NUM_PROXIES": 1})
def test_behind_one_proxy_the_address_it_saw_is_throttled():
    user = make_user("annotator")

    def ask(client_address: str) -> int:
        # The proxy appends the address it saw to what the client sent.
        return Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"6.6.6.6, {client_address}").post(
            "/api/token/", {"username": user.username, "password": DEFAULT_PASSWORD}
        ).status_code

    assert [ask("203.0.113.5") for _ in range(11)] == [200] * 10 + [429]
    assert ask("203.0.113.6") == 200


@override_settings(AXES_FAILURE_LIMIT=5, POLIS_ADDRESS_LOGIN_FAILURES=20)
def test_one_password_sprayed_over_many_accounts_from_one_address_is_stopped():
    """The lock-out per user name lets one password be tried on every account; the count of
    failures per address stops that, on the login form and at /api/token/ alike."""
    users = [make_user("annotator") for _ in range(22)]
    statuses = [log_in(Client(), user.username, "Summer2026!").status_code for user in users[:19]]
    assert statuses == [200] * 19  # the form again: under both limits
    assert log_in(Client(), users[19].username, "Summer2026!").status_code == 429  # the 20th failure
    # From now on no password is tried from this address, not even a right one.
    assert log_in(Client(), users[20].username, DEFAULT_PASSWORD).status_code == 429
    response = Client().post("/api/token/", {"username": users[21].username, "password": DEFAULT_PASSWORD})
    assert response.status_code == 400 and not Token.objects.exists()
    # Another address is not locked out.
    assert log_in(Client(REMOTE_ADDR="10.1.2.3"), users[21].username, DEFAULT_PASSWORD).status_code == 302
    # The organizer lifts it with the command (or in the admin).
    call_command("axes_reset_ip", "127.0.0.1")
    assert log_in(Client(), users[21].username, DEFAULT_PASSWORD).status_code == 302


def test_a_lab_of_thirty_annotators_behind_one_address_who_mistype_still_log_in():
    """With the default limits: each of 30 annotators behind one address types a wrong password
    three times, then the right one."""
    users = [make_user("annotator") for _ in range(30)]
    for user in users:
        for _ in range(3):
            assert log_in(Client(), user.username, "wrong").status_code == 200
    for user in users:
        assert log_in(Client(), user.username, DEFAULT_PASSWORD).status_code == 302


@override_settings(AXES_FAILURE_LIMIT=3)
def test_without_a_proxy_the_login_lock_out_ignores_x_forwarded_for():
    user = make_user("annotator")
    for n in range(3):
        Client(HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").post("/accounts/login/", {"username": user.username, "password": "x"})
    response = Client(HTTP_X_FORWARDED_FOR="198.51.100.99").post(
        "/accounts/login/", {"username": user.username, "password": DEFAULT_PASSWORD}
    )
    assert response.status_code == 429


@override_settings(AXES_FAILURE_LIMIT=3, POLIS_PROXIES=1)
def test_behind_one_proxy_the_login_lock_out_is_per_address_the_proxy_saw():
    user = make_user("annotator")

    def via_proxy(client_address: str, password: str) -> int:
        return Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"6.6.6.6, {client_address}").post(
            "/accounts/login/", {"username": user.username, "password": password}
        ).status_code

    for _ in range(3):
        via_proxy("203.0.113.5", "wrong")
    assert via_proxy("203.0.113.5", DEFAULT_PASSWORD) == 429
    assert via_proxy("203.0.113.6", DEFAULT_PASSWORD) == 302  # not everyone behind the proxy


def test_a_user_name_longer_than_the_lock_outs_record_is_a_failure_as_any_other():
    """axes' record of a failure keeps 255 characters: a longer name was a 500 on the login form
    and at /api/token/. It is no user's name; its failures count, under the name cut."""
    name = "x" * 300
    assert log_in(Client(), name, "wrong").status_code == 200  # the form again
    assert Client().post("/api/token/", {"username": name, "password": "wrong"}).status_code == 400
    assert Client().post("/api/token/", {"username": name, "password": "wrong"},
                         content_type="application/json").status_code == 400
    attempt = AccessAttempt.objects.get()
    assert (attempt.username, attempt.failures_since_start) == (name[:255], 3)
