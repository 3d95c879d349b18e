"""Roles are Django groups; organizers are also staff (they use the admin)."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

ANNOTATOR = "annotator"
ADJUDICATOR = "adjudicator"
ORGANIZER = "organizer"
ROLES = (ANNOTATOR, ADJUDICATOR, ORGANIZER)


def has_role(user: AbstractBaseUser | AnonymousUser, role: str) -> bool:
    if not user.is_authenticated:
        return False
    if role == ORGANIZER and user.is_superuser:
        return True
    # Group names are cached on the user object so a page asks the database once.
    names = getattr(user, "_polis_group_names", None)
    if names is None:
        names = frozenset(user.groups.values_list("name", flat=True))
        user._polis_group_names = names
    return role in names


def can_see_gold(user: AbstractBaseUser | AnonymousUser, dataset) -> bool:
    """Organizers always; adjudicators once the dataset's gold is revealed to them."""
    return has_role(user, ORGANIZER) or (dataset.gold_revealed and has_role(user, ADJUDICATOR))
