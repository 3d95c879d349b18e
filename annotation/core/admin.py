"""What every admin page of the app shares: organizers only, and history records read only."""

from django.contrib import admin
from django.http import HttpRequest

from annotation.core.roles import ORGANIZER, has_role


def _is_organizer(request: HttpRequest) -> bool:
    return request.user.is_active and request.user.is_staff and has_role(request.user, ORGANIZER)


class OrganizerOnlyMixin:
    """Organizers may do everything the admin class allows; nobody else sees it at all."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _is_organizer(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _is_organizer(request)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request)


class OrganizerOnlyAdmin(OrganizerOnlyMixin, admin.ModelAdmin):
    pass


class HistoryAdmin(OrganizerOnlyAdmin):
    """A record of the campaign's history: organizers see it; nobody adds or changes it here
    (that would bypass the flows' checks and their revisions); only a superuser deletes it."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return _is_organizer(request) and request.user.is_superuser
