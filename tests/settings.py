"""The project's settings as the test suite runs them.

pytest-django imports the settings before any conftest runs, so the test
environment is set here, then polis_site.settings is read unchanged.
"""

import os

# Tests run with DEBUG off, as in production; they still need a key.
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-" + "x" * 40)

from polis_site.settings import *  # noqa: E402,F403

# The manifest storage of production needs `collectstatic` first; tests serve
# static files straight from the finders.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Hashing a password with the production hasher costs ~0.3 s; tests make many users.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Reports are computed inline (no worker), and again whenever the data changed.
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
POLIS_REPORT_REFRESH = timedelta(0)  # noqa: F405
POLIS_REPORT_VERSION_SECONDS = 0  # the data version read on every request
