"""Token authentication whose tokens expire (imported by the settings: no views here)."""

from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from annotation.services.tokens import expired


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refusing a token older than settings.POLIS_TOKEN_LIFETIME."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if expired(token):
            raise exceptions.AuthenticationFailed(_("Token has expired: ask for a new one at /api/token/."))
        return user, token

