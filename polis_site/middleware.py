"""Project middleware: what happens to every request before the views see it."""

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

# Django makes session keys of lowercase letters and digits (32 of them); anything else in
# the cookie (NUL, which PostgreSQL refuses in a query, or any other junk) names no session.
_SESSION_KEY = re.compile(r"[a-z0-9]{8,64}")


def drop_malformed_session_cookie(get_response: Callable[[HttpRequest], HttpResponse]):
    """Treat a session cookie that no session key can look like as no session at all."""

    def middleware(request: HttpRequest) -> HttpResponse:
        key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
        if key is not None and not _SESSION_KEY.fullmatch(key):
            del request.COOKIES[settings.SESSION_COOKIE_NAME]
        return get_response(request)

    return middleware


def private_pages(get_response: Callable[[HttpRequest], HttpResponse]):
    """Every answer to a logged-in user (a session or an API token) that says nothing of caching
    is ``Cache-Control: private, no-cache``: no shared cache keeps it, and the browser asks again
    before showing it anew (back and forward may still show the page as it was). Answers that
    carry secrets or data (the accounts page and its one-time links, exports, reports, the token)
    say ``no-store`` themselves (Django's ``never_cache`` on their views)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if "Cache-Control" not in response:
            user = getattr(request, "user", None)
            if (user is not None and user.is_authenticated) or "HTTP_AUTHORIZATION" in request.META:
                patch_cache_control(response, private=True, no_cache=True)
        return response

    return middleware
