"""Roles are Django groups; organizers are also staff (they use the admin)."""

from collections.abc import Callable
from functools import wraps

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import HttpRequest, HttpResponse

from annotation.core import sql_rows
from annotation.core.errors import NotYoursToManage

ANNOTATOR = "annotator"


ADJUDICATOR = "adjudicator"


ORGANIZER = "organizer"


ROLES = (ANNOTATOR, ADJUDICATOR, ORGANIZER)


def has_role(user: AbstractBaseUser | AnonymousUser, role: str) -> bool:
    if not user.is_authenticated:
        return False
    if role == ORGANIZER and user.is_superuser:
        return True
    # Group names are cached on the user object (UserWithRolesBackend loads them with the
    # user of a session) so a page asks the database once, and no longer than the request:
    # a role taken away counts from the next request on.
    names = getattr(user, "_polis_group_names", None)
    if names is None:
        names = _group_names(user.pk)
        user._polis_group_names = names
    return role in names


def _group_names(user_id: int) -> frozenset[str]:
    # Hand-written: it runs on every request, and building the ORM query took longer than
    # the database took to answer it.
    memberships, groups = sql_rows.table(Group.user_set.through), sql_rows.table(Group)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT g.name FROM {groups} g JOIN {memberships} m ON m.group_id = g.id"
            " WHERE m.user_id = %s",
            [user_id],
        )
        return frozenset(name for (name,) in cursor.fetchall())


def give_first_role(user: AbstractBaseUser, role: str) -> None:
    """Make an account just created (no role yet) one of ``role``'s, in one statement, and
    remember its roles on the user object as has_role does (a panel participant's entry makes
    the account and at once checks its role)."""
    memberships, groups = sql_rows.table(Group.user_set.through), sql_rows.table(Group)
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {memberships} (user_id, group_id) SELECT %s, g.id FROM {groups} g WHERE g.name = %s",
                       [user.pk, role])
    user._polis_group_names = frozenset([role])


def user_with_roles(source: str, where: str, params: list, columns: str = ""):
    """The user that ``source`` (a FROM clause whose user table is aliased ``u``) and ``where``
    select, with their role names, in one hand-written query; None if there is none. Extra
    ``columns`` (``, <expression> AS <name>``) are set on the user object as the database
    returns them (no conversion); ``params`` fill the placeholders of columns, source and
    where, in that order. Every page checks a role, and the ORM's queries for the user and
    then their groups cost more to build than the database takes to answer."""
    user_model = get_user_model()
    memberships, groups = sql_rows.table(user_model.groups.through), sql_rows.table(Group)
    fields = sql_rows.column_count(user_model)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {sql_rows.columns(user_model, 'u')}{columns}, g.name FROM {source}"
            f" LEFT JOIN {memberships} m ON m.user_id = u.id LEFT JOIN {groups} g ON g.id = m.group_id"
            f" WHERE {where}",
            params,
        )
        rows = cursor.fetchall()
        extra_names = [column[0] for column in cursor.description[fields:-1]]
    if not rows:
        return None
    user = sql_rows.instance(user_model, rows[0][:fields])
    for name, value in zip(extra_names, rows[0][fields:-1]):
        setattr(user, name, value)
    user._polis_group_names = frozenset(row[-1] for row in rows if row[-1] is not None)
    return user


class UserWithRolesBackend(ModelBackend):
    """Django's ModelBackend, except that the user of a session is loaded together with
    their role names and whether their single-key shortcuts are on (for every page with keys:
    annotation.models.single_keys_for) in one query (user_with_roles)."""

    def get_user(self, user_id):
        # The model by name: core comes before the models in the import order.
        preferences = sql_rows.table(apps.get_model("annotation", "KeyPreference"))
        single_keys = (
            f", NOT EXISTS (SELECT 1 FROM {preferences} k WHERE k.user_id = u.id AND NOT k.single_keys)"
            " AS polis_single_keys"
        )
        user = user_with_roles(f"{sql_rows.table(get_user_model())} u", "u.id = %s", [user_id], single_keys)
        return user if user is not None and self.user_can_authenticate(user) else None


def may_manage(actor: AbstractBaseUser, account: AbstractBaseUser) -> bool:
    """Whether ``actor`` may act on ``account`` (password link, deactivation, release, roles,
    the admin's change and delete): a superuser on every account, anyone else only on accounts
    that are neither organizer, staff nor superuser."""
    return actor.is_superuser or not (account.is_superuser or account.is_staff or has_role(account, ORGANIZER))


def check_may_manage(actor: AbstractBaseUser, account: AbstractBaseUser) -> None:
    """NotYoursToManage unless ``actor`` may act on ``account``."""
    if not may_manage(actor, account):
        raise NotYoursToManage(account.get_username())


def require_role(request: HttpRequest, *roles: str) -> None:
    """PermissionDenied unless the user of the request (a page's or the API's) has one of ``roles``."""
    if not any(has_role(request.user, role) for role in roles):
        raise PermissionDenied


def can_see_gold(user: AbstractBaseUser | AnonymousUser, dataset) -> bool:
    """Organizers always; adjudicators once the dataset's gold is revealed to them."""
    return has_role(user, ORGANIZER) or (dataset.gold_revealed and has_role(user, ADJUDICATOR))


def role_required(role: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """View decorator: anonymous users go to the login page; users without ``role`` get 403."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not has_role(request.user, role):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return checked

    return decorator


annotator_required = role_required(ANNOTATOR)
adjudicator_required = role_required(ADJUDICATOR)
organizer_required = role_required(ORGANIZER)
