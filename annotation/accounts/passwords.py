"""A password set ends the account's other sessions and its API token, however it is set (the
one-time link, the password change page, the admin, `manage.py changepassword`).

Django tells every password validator of settings.AUTH_PASSWORD_VALIDATORS when a password has
been set and saved (``password_changed``), whatever set it: that hook is this class. It checks
nothing. Django's own session check would already refuse the other sessions (their password
hash no longer matches); they are deleted, and the token, which has no such check, with them."""

from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext as _

from annotation.accounts.services import end_sessions_and_tokens


class EndSessionsOnNewPassword:
    def validate(self, password: str, user: AbstractBaseUser | None = None) -> None:
        return None

    def password_changed(self, password: str, user: AbstractBaseUser | None = None) -> None:
        if user is not None and user.pk is not None:
            end_sessions_and_tokens(user)

    def get_help_text(self) -> str:
        return _("A new password ends your other sessions and revokes your API token.")
