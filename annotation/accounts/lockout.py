"""Login lock-outs (django-axes, imported by the settings): the client's address and the user
name a failure is recorded under, and a limit of wrong passwords per address besides axes' own
per user name and address.

Per user name and address alone, one password could be tried on every account from one place.
So every wrong password from an address also counts towards settings.POLIS_ADDRESS_LOGIN_FAILURES
within the lock-out time (settings.AXES_COOLOFF_TIME), whatever the user name: past it, no login
from that address is tried, on the login form and at /api/token/ alike. The count is taken from
axes' own records (one row per user name and address, deleted when that user logs in or when it
expires), so a user who mistyped and then logged in no longer counts, and an organizer lifts the
lock-out as axes' own: `manage.py axes_reset_ip ADDRESS`, or deleting the rows in the admin.
"""

import ipaddress

from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest
from django.utils import timezone


def client_address(request: HttpRequest) -> str | None:
    """The client's address: the connection's, or with settings.POLIS_PROXIES proxies in front the
    one the outermost of them saw (X-Forwarded-For read from its end, as DRF's NUM_PROXIES reads
    it for the throttles). Without a declared proxy the header is anybody's word and is ignored."""
    remote = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if not settings.POLIS_PROXIES or not forwarded:
        return remote
    addresses = [address.strip() for address in forwarded.split(",")]
    candidate = addresses[-min(settings.POLIS_PROXIES, len(addresses))]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote


# The longest user name axes' record of a failure keeps.
RECORDED_USERNAME = AccessAttempt._meta.get_field("username").max_length


def client_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The user name a failure is recorded under: axes' own reading (the credentials, else the
    posted form), cut to the characters its record keeps. A longer name is no user's (150 at
    most) and its failures still count, cut; whole, it was a database error (a 500) on the login
    form and at /api/token/."""
    name = credentials.get("username") if credentials else getattr(request, "data", request.POST).get("username")
    return name[:RECORDED_USERNAME] if isinstance(name, str) else name


def address_failures(address: str | None) -> int:
    """Wrong passwords from ``address`` within the lock-out time, whatever the user names."""
    if address is None:
        return 0
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    found = AccessAttempt.objects.filter(ip_address=address, attempt_time__gte=since).aggregate(
        total=Sum("failures_since_start")
    )
    return found["total"] or 0


def address_locked_out(request: HttpRequest) -> bool:
    return address_failures(getattr(request, "axes_ip_address", None)) >= settings.POLIS_ADDRESS_LOGIN_FAILURES


class AddressLimitedHandler(AxesDatabaseHandler):
    """axes' database handler, also locking out an address with too many wrong passwords."""

    def is_locked(self, request, credentials=None) -> bool:
        return super().is_locked(request, credentials) or address_locked_out(request)

    def user_logged_in(self, sender, request, user, **kwargs):
        """A login without a password (a panel participant's, by the study's entry link) has no
        failures to reset and is no password login to record: axes' five queries left out of
        an entry that 400 participants may make within seconds."""
        if user.has_usable_password():
            super().user_logged_in(sender, request, user, **kwargs)

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is not None and not getattr(request, "axes_locked_out", False) and address_locked_out(request):
            # This failure reached the limit: answered with the lock-out page, as axes does.
            request.axes_locked_out = True
            request.axes_credentials = credentials
