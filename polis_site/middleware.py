"""Project middleware: what happens to every request before the views see it."""

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

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
