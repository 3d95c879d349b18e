"""The view that hands out API tokens (throttled; expiry in annotation.accounts.authentication)."""

from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from annotation.accounts.tokens import issue_token
from annotation.core.serializers import RefusalSerializer


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text='Send it as the header "Authorization: Token <token>".')


class ObtainExpiringToken(ObtainAuthToken):
    """POST username and password: your token (a new one when the old one has expired).
    Throttled per address (the "token" rate); wrong passwords also count towards the login lock-out."""

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "token"

    def get_throttles(self):
        # Only a POST asks for a token: any other method is refused (405) uncounted, so that
        # no GET writes (the counts are rows of the database cache).
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(
        auth=[],
        parameters=[OpenApiParameter("Retry-After", int, OpenApiParameter.HEADER, response=[429],
                                     description="seconds until the address may ask again")],
        responses={200: TokenSerializer, 429: RefusalSerializer},
    )
    def post(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = issue_token(serializer.validated_data["user"])
        return Response({"token": token.key})


# The answer is a secret: no cache keeps it.
obtain_token = never_cache(ObtainExpiringToken.as_view())
