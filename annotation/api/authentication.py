"""Token authentication whose tokens expire, and the view that hands them out (throttled)."""

from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from annotation.services.tokens import expired, issue_token


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refusing a token older than settings.POLIS_TOKEN_LIFETIME."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if expired(token):
            raise exceptions.AuthenticationFailed(_("Token has expired: ask for a new one at /api/token/."))
        return user, token


class ObtainExpiringToken(ObtainAuthToken):
    """POST username and password: your token (a new one when the old one has expired).
    Throttled per address (the "token" rate); wrong passwords also count towards the login lock-out."""

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "token"

    def post(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = issue_token(serializer.validated_data["user"])
        return Response({"token": token.key})


obtain_token = ObtainExpiringToken.as_view()
