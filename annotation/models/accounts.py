"""What a person sets for themselves, kept with their account."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class KeyPreference(models.Model):
    """Whether the pages' single-character shortcuts (A–D, digits, J/K...) act as they are or
    only with Alt held (WCAG 2.1.4: a speech-input user's words would otherwise press them).
    No row: as they are."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="key_preference", verbose_name=_("user")
    )
    single_keys = models.BooleanField(_("single-key shortcuts"), default=True)

    class Meta:
        verbose_name = _("key preference")
        verbose_name_plural = _("key preferences")

    def __str__(self) -> str:
        return str((_("%(user)s: single keys on") if self.single_keys else _("%(user)s: single keys off")) % {"user": self.user_id})


def single_keys_for(user) -> bool:
    """Whether ``user``'s single-character shortcuts act without Alt: as the session's user
    was loaded with it (annotation.core.roles.UserWithRolesBackend), else one query."""
    loaded = getattr(user, "polis_single_keys", None)
    if loaded is not None:
        return loaded
    return not KeyPreference.objects.filter(user_id=user.pk, single_keys=False).exists()
