"""Settings for PoLiS Annotate, read from the environment.

DATABASE_URL  database (default: SQLite file var/db.sqlite3)
SECRET_KEY    required unless DEBUG is on
DEBUG         "1"/"true" turns debug on (off by default)
ALLOWED_HOSTS comma-separated (default: 127.0.0.1,localhost)
POLIS_HTTPS   "1"/"true" when served over HTTPS only: secure cookies, SSL redirect, HSTS
POLIS_PROXY   "1"/"true" when one reverse proxy (nginx, a load balancer) is in front, a number
              N for N proxies in a row: its X-Forwarded-Proto and the last N addresses of
              X-Forwarded-For are trusted, nobody else's (unset: neither header is trusted)
POLIS_MAX_UPLOAD_MB   the largest file the upload pages take (default 64)
POLIS_TOKEN_DAYS      days an API token is valid (default 30)
POLIS_LOGIN_FAILURES  wrong passwords in a row (per user name and address) before a lock-out (default 10)
POLIS_LOGIN_LOCKOUT_MINUTES   how long a lock-out lasts (default 15)
POLIS_ADDRESS_LOGIN_FAILURES  wrong passwords from one address, whatever the user names, within
              those minutes before logins from it are locked out (default 100)
POLIS_TOKEN_RATE      requests for a token per address (DRF's rate syntax, default 10/minute)
POLIS_REPORT_REFRESH_MINUTES  while answers come in, a report is computed again on its own at most
              this often (default 5; 0: whenever the data changed)
POLIS_REPORT_VERSION_SECONDS  how long "what changed since" may lag behind the data (default 10)
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def proxy_count() -> int:
    """How many proxies POLIS_PROXY declares: a number, or 1 for a yes; 0 when unset."""
    value = os.environ.get("POLIS_PROXY", "").strip()
    return int(value) if value.isdigit() else int(env_flag("POLIS_PROXY"))


POLIS_PROXIES = proxy_count()


DEBUG = env_flag("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "insecure-development-key-only-for-debug"

ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
    if host.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "django_tasks",
    "django_tasks_db",
    "annotation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and API answers of 200 bytes or more compressed for a client that accepts gzip (the
    # agreement page is ~300 KB of HTML); Django's own, as it pads each answer against BREACH,
    # which nginx's gzip does not. After WhiteNoise, which serves static files precompressed.
    "django.middleware.gzip.GZipMiddleware",
    "polis_site.middleware.drop_malformed_session_cookie",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Answers to logged-in users: private, no-cache unless the view says more (no-store).
    "polis_site.middleware.private_pages",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Every request with a body over the upload limit: 413 before anything reads it.
    "annotation.core.files.refuse_large_uploads",
    # A NUL in the path or the query string (PostgreSQL cannot take it): 400.
    "annotation.core.parameters.refuse_nul_parameters",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it answers a locked-out login with the lock-out page.
    "axes.middleware.AxesMiddleware",
]

# Django's database sessions (logout deletes the session row), read with a cheaper query.
SESSION_ENGINE = "polis_site.sessions"

ROOT_URLCONF = "polis_site.urls"
WSGI_APPLICATION = "polis_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

_default_sqlite = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", _default_sqlite),
        # Persistent connections: a new PostgreSQL connection per request costs
        # more than the request itself (156 vs 1,838 req/s measured here).
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound on the server, so that PostgreSQL prepares a statement the fifth time
    # a connection runs it and plans it no more: the item page and save queries took longer
    # to plan than to run. Prepared statements need persistent connections to pay off (the
    # default above) and, behind PgBouncer, its transaction mode with max_prepared_statements
    # (1.21 or later) or session mode.
    DATABASES["default"]["OPTIONS"] = {"server_side_binding": True, "prepare_threshold": 5}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        # Several annotators saving at once: a save reads, then writes. With SQLite's default
        # (deferred) transactions two such saves each hold a read lock and neither can take
        # the write lock ("database is locked" at once, the busy timeout cannot help). IMMEDIATE
        # takes the write lock at BEGIN, where a busy writer is waited for (up to `timeout`
        # seconds); WAL lets readers go on while one writes.
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }

# One cache for every worker and instance (DRF's throttles keep their counts here): a table
# of the database, made by `manage.py migrate` (migration 0009 runs createcachetable).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "polis_cache"},
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Checks nothing: a password set deletes the account's sessions and API token.
    {"NAME": "annotation.accounts.passwords.EndSessionsOnNewPassword"},
]

# Django's ModelBackend, loading a session's user with their roles in one query.
# django-axes first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "annotation.core.roles.UserWithRolesBackend"]

# Login throttling (django-axes): failures are counted in the database (its default handler),
# so every worker and instance sees the same count. A lock-out is per user name and address,
# so a wrong password from one place neither locks the user out elsewhere nor blocks others.
AXES_FAILURE_LIMIT = int(os.environ.get("POLIS_LOGIN_FAILURES", "10"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("POLIS_LOGIN_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# And per address, whatever the user names (one password tried on every account): a limit a lab
# of annotators behind one address does not reach (a user's failures stop counting once they
# log in), counted by the handler below from the same records.
AXES_HANDLER = "annotation.accounts.lockout.AddressLimitedHandler"
POLIS_ADDRESS_LOGIN_FAILURES = int(os.environ.get("POLIS_ADDRESS_LOGIN_FAILURES", "100"))
# The client's address: the connection's, or the one the declared proxies saw (POLIS_PROXY),
# the same as the API's throttles take (REST_FRAMEWORK's NUM_PROXIES below).
AXES_CLIENT_IP_CALLABLE = "annotation.accounts.lockout.client_address"
AXES_USERNAME_CALLABLE = "annotation.accounts.lockout.client_username"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# English is the fallback; annotators get Polish from Accept-Language or the switcher.
LANGUAGE_CODE = "en"
LANGUAGES = [("pl", _("Polish")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The site's time zone: the times on pages and plots (stored in UTC).
TIME_ZONE = os.environ.get("POLIS_TIME_ZONE", "Europe/Warsaw")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "annotation.accounts.authentication.ExpiringTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's defaults, with its JSON parser refusing bodies nested too deeply to read (400, not 500).
    "DEFAULT_PARSER_CLASSES": [
        "annotation.core.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Every error of the API has the body of a refusal (detail, problems, codes).
    "EXCEPTION_HANDLER": "annotation.core.http.api_exception_handler",
    # Counted in the shared cache above (the database), so that they hold across workers.
    "DEFAULT_THROTTLE_RATES": {"token": os.environ.get("POLIS_TOKEN_RATE", "10/minute")},
    # The client's address for the throttles: the connection's, or the one the declared proxies
    # saw. Unset, DRF would take X-Forwarded-For as sent, and a new one per request escapes.
    "NUM_PROXIES": POLIS_PROXIES,
}
# API tokens expire; an organizer revokes one in the admin or with `manage.py revoke_tokens`.
# Reports are computed by a background worker (`manage.py db_worker`) from a queue in the
# app's own database (django-tasks with django-tasks-db).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
POLIS_REPORT_REFRESH = timedelta(minutes=float(os.environ.get("POLIS_REPORT_REFRESH_MINUTES", "5")))
# A report page and its plots and downloads read the data version (what changed since) at most
# this often per dataset or campaign (0: on every request).
POLIS_REPORT_VERSION_SECONDS = float(os.environ.get("POLIS_REPORT_VERSION_SECONDS", "10"))

POLIS_TOKEN_LIFETIME = timedelta(days=int(os.environ.get("POLIS_TOKEN_DAYS", "30")))

# The largest file the upload pages take; a larger one is refused before it is read (import
# it with `manage.py import_items`, which reads any size line by line).
POLIS_MAX_UPLOAD_BYTES = int(os.environ.get("POLIS_MAX_UPLOAD_MB", "64")) * 1024 * 1024

# Content-Security-Policy (django-csp): scripts, styles, images and fonts from this site only;
# no inline script or style, no plug-ins, no framing, forms post to this site only.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "PoLiS Annotate API",
    "DESCRIPTION": "Datasets, assigned items and annotations of the PoLiS human baseline.",
    "VERSION": "1.0.0",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SERVE_INCLUDE_SCHEMA": False,
    # Ids in paths: whole numbers the database's keys can hold (annotation.core.converters).
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}},
    # Every operation's error answers, with the body of a refusal (annotation.core.openapi).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "annotation.core.openapi.document_errors"],
    # Swagger UI's files come from drf-spectacular-sidecar, served with the other static files.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# A proxy in front: the scheme it saw and the client's address come from its headers. Only
# then: without a proxy, anyone could send these headers.
if POLIS_PROXIES:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# HTTPS-only deployment: one switch turns on every transport-security setting.
if env_flag("POLIS_HTTPS"):
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 31_536_000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
