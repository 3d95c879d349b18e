"""Admin pages of accounts, their key settings, API tokens and login lock-outs.

Organizers create and manage annotator and adjudicator accounts; organizer, staff and superuser
accounts are a superuser's (an organizer who could set another organizer's password could log
in as them)."""

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group, User
from django.http import HttpRequest
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from annotation.accounts.services import ACCOUNT_ROLES, end_sessions_and_tokens
from annotation.core.admin import OrganizerOnlyAdmin, OrganizerOnlyMixin, _is_organizer
from annotation.core.roles import may_manage
from annotation.models import KeyPreference


class OrganizerUserAdmin(OrganizerOnlyMixin, UserAdmin):
    """Organizers create and manage annotator and adjudicator accounts; organizer, staff and
    superuser accounts, and the roles and rights that make one, are a superuser's."""

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request) and (obj is None or may_manage(request.user, obj))

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_change_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        if request.user.is_superuser:
            return super().get_readonly_fields(request, obj)
        return ["is_staff", "is_superuser", "user_permissions", "last_login", "date_joined"]

    def save_model(self, request: HttpRequest, obj: User, form, change: bool) -> None:
        """As on the accounts page: an account saved inactive loses its sessions and tokens."""
        super().save_model(request, obj, form, change)
        if not obj.is_active:
            end_sessions_and_tokens(obj)

    def formfield_for_manytomany(self, db_field, request: HttpRequest, **kwargs):
        if db_field.name == "groups" and not request.user.is_superuser:
            kwargs["queryset"] = Group.objects.filter(name__in=ACCOUNT_ROLES)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


admin.site.unregister(User)


admin.site.register(User, OrganizerUserAdmin)


class RevokeOnlyMixin(OrganizerOnlyMixin):
    """Organizers see these records and delete them (revoke a token, lift a lock-out); they are
    made by logging in, never here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class OrganizerTokenAdmin(RevokeOnlyMixin, TokenAdmin):
    pass


class OrganizerAccessAttemptAdmin(RevokeOnlyMixin, AccessAttemptAdmin):
    pass


admin.site.unregister(TokenProxy)


admin.site.register(TokenProxy, OrganizerTokenAdmin)


admin.site.unregister(AccessAttempt)


admin.site.register(AccessAttempt, OrganizerAccessAttemptAdmin)


@admin.register(KeyPreference)
class KeyPreferenceAdmin(OrganizerOnlyAdmin):
    """Who turned single-key shortcuts off (each person sets it in the keys window; an
    organizer may set it for someone who asks)."""

    list_display = ("user", "single_keys")
    list_filter = ("single_keys",)
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
