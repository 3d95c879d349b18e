"""API tokens: issued on request, valid for settings.POLIS_TOKEN_LIFETIME, revocable by organizers."""

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token


def expired(token: Token) -> bool:
    return token.created + settings.POLIS_TOKEN_LIFETIME <= timezone.now()


def issue_token(user: AbstractBaseUser) -> Token:
    """The user's valid token; an expired one is replaced by a new key."""
    with transaction.atomic():
        token, _ = Token.objects.select_for_update().get_or_create(user=user)
        if expired(token):
            token.delete()
            token = Token.objects.create(user=user)
    return token


def revoke_tokens(user: AbstractBaseUser) -> int:
    """Delete the user's token (the next request with it is refused); returns how many were deleted."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted
