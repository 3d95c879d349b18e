"""The settings as deployed: database vendor, `check --deploy`, HTTPS switch.

The deployment checks run `manage.py` in a fresh process, because the settings
are read from the environment once, at start-up.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management.utils import get_random_secret_key
from django.db import connection

BASE_DIR = Path(__file__).resolve().parent.parent
ON_POSTGRES_BY_REQUEST = os.environ.get("CI", "").lower() == "true" or os.environ.get(
    "DATABASE_URL", ""
).startswith(("postgres://", "postgresql://"))


# Variables of the test run that a production process would not have.
NOT_IN_PRODUCTION = {"DEBUG", "POLIS_HTTPS", "POLIS_PROXY", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_SETTINGS_MODULE"}


def production_env(**overrides: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in NOT_IN_PRODUCTION}
    env.update(
        DJANGO_SETTINGS_MODULE="polis_site.settings",
        SECRET_KEY=get_random_secret_key(),
        ALLOWED_HOSTS="annotate.example.org",
    )
    env.update(overrides)
    return env


def run_python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )


def test_database_is_postgresql_when_the_suite_runs_on_it():
    if not ON_POSTGRES_BY_REQUEST:
        pytest.skip("development run on SQLite (neither CI=true nor a PostgreSQL DATABASE_URL)")
    assert connection.vendor == "postgresql"


def test_check_deploy_is_clean_with_production_settings():
    result = run_python(
        production_env(POLIS_HTTPS="1"), "manage.py", "check", "--deploy", "--fail-level", "WARNING"
    )

    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues (0 silenced)." in output
    assert "WARNING" not in output


def test_check_deploy_refuses_a_short_secret_key():
    # The check above is only meaningful if `check --deploy` does look at these settings.
    result = run_python(
        production_env(POLIS_HTTPS="1", SECRET_KEY="short"), "manage.py", "check", "--deploy", "--fail-level", "WARNING"
    )

    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


def test_settings_refuse_to_start_without_secret_key_when_debug_is_off():
    env = production_env()
    del env["SECRET_KEY"]

    result = run_python(env, "manage.py", "check")

    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


REQUEST_ROOT = """
import django
django.setup()
from django.conf import settings
from django.test import Client
response = Client().get("/", HTTP_HOST="127.0.0.1:8000")
print(response.status_code, response.headers.get("Location"), settings.SESSION_COOKIE_SECURE,
      settings.CSRF_COOKIE_SECURE, settings.SECURE_HSTS_SECONDS)
"""


def test_demo_settings_serve_plain_http_on_localhost():
    result = run_python(production_env(ALLOWED_HOSTS="127.0.0.1,localhost"), "-c", REQUEST_ROOT)

    assert result.returncode == 0, result.stderr
    # Anonymous visitors go to the login page over plain HTTP; cookies work without TLS.
    assert result.stdout.split() == ["302", "/accounts/login/?next=/", "False", "False", "0"]


def test_https_switch_redirects_plain_http_and_secures_cookies():
    result = run_python(production_env(ALLOWED_HOSTS="127.0.0.1", POLIS_HTTPS="1"), "-c", REQUEST_ROOT)

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["301", "https://127.0.0.1:8000/", "True", "True", "31536000"]


FORWARDED_HTTPS = """
import django
django.setup()
from django.test import Client
response = Client().get("/", HTTP_HOST="127.0.0.1:8000", HTTP_X_FORWARDED_PROTO="https")
print(response.status_code, response.headers.get("Location"))
"""


@pytest.mark.parametrize(
    ("proxy", "expected"), [("", "https://127.0.0.1:8000/"), ("1", "/accounts/login/?next=/")]
)
def test_x_forwarded_proto_is_trusted_only_when_a_proxy_is_declared(proxy, expected):
    """Without POLIS_PROXY anyone could send the header; it is ignored (the redirect to HTTPS
    stays). With it, the proxy's word that the request came over HTTPS is taken."""
    env = production_env(ALLOWED_HOSTS="127.0.0.1", POLIS_HTTPS="1", POLIS_PROXY=proxy)
    result = run_python(env, "-c", FORWARDED_HTTPS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[1] == expected


@pytest.mark.django_db
def test_the_migrations_describe_the_models():
    """A model change without its migration would reach production without its schema."""
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


MIGRATE_THEN_ASK_FOR_A_TOKEN = """
import django
django.setup()
from django.core.management import call_command
from django.db import connection
from django.test import Client
call_command("migrate", verbosity=0)
print("polis_cache" in connection.introspection.table_names())
response = Client().post("/api/token/", {"username": "nobody", "password": "x"}, HTTP_HOST="127.0.0.1")
print(response.status_code)
"""


def test_migrate_makes_the_cache_table_the_token_throttle_counts_in(tmp_path):
    """The README's steps but createcachetable: /api/token/ answers (400, no such user), not 500."""
    env = production_env(ALLOWED_HOSTS="127.0.0.1", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    result = run_python(env, "-c", MIGRATE_THEN_ASK_FOR_A_TOKEN)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["True", "400"]
