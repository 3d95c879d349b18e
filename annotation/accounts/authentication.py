"""Token authentication whose tokens expire (imported by the settings: no views here)."""

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from annotation.core import sql_rows
from annotation.core.roles import user_with_roles


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refusing a token older than settings.POLIS_TOKEN_LIFETIME
    (the same rule as annotation.accounts.tokens.expired).

    The token, its user and the user's roles are read in one query (as a session's user is,
    see annotation.core.roles): an API request costs no more to authenticate than a page."""

    def authenticate_credentials(self, key):
        tokens, users = sql_rows.table(Token), sql_rows.table(Token.user.field.related_model)
        # The expiry is decided in the query: a raw query's extra column comes back unconverted
        # (a string on SQLite), so the token's creation time is compared there, not here.
        oldest_valid = connection.ops.adapt_datetimefield_value(timezone.now() - settings.POLIS_TOKEN_LIFETIME)
        user = user_with_roles(
            f"{tokens} t JOIN {users} u ON u.id = t.user_id", "t.key = %s", [oldest_valid, key],
            columns=", t.created > %s AS token_valid",
        )
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if not user.token_valid:
            raise exceptions.AuthenticationFailed(_("Token has expired: ask for a new one at /api/token/."))
        return user, Token(key=key, user=user)
