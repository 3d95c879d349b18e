"""The accounts page: who is in which role, and what each annotator left unanswered."""

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef

from annotation.core.roles import ROLES, may_manage
from annotation.models import Annotation, Assignment


@dataclass(frozen=True)
class Unanswered:
    dataset_id: int
    dataset_name: str
    count: int


@dataclass(frozen=True)
class Account:
    user: User
    unanswered: list[Unanswered]  # per dataset, assigned items without a submitted answer
    manageable: bool  # the viewer may make its password link, deactivate it, release its items


def accounts_by_role(viewer: User) -> list[tuple[str, list[Account]]]:
    """Each role with its accounts by name (an account with two roles is under both), as
    ``viewer`` sees them; three queries whatever the number of accounts."""
    users = User.objects.prefetch_related("groups").order_by("username")
    submitted = Annotation.objects.filter(
        item=OuterRef("item"), annotator=OuterRef("annotator"), status=Annotation.Status.SUBMITTED
    )
    open_work = (
        Assignment.objects.exclude(Exists(submitted))
        .values("annotator_id", "dataset_id", "dataset__name")
        .annotate(count=Count("id"))
        .order_by("dataset__name")
    )
    unanswered: dict[int, list[Unanswered]] = defaultdict(list)
    for row in open_work:
        unanswered[row["annotator_id"]].append(Unanswered(row["dataset_id"], row["dataset__name"], row["count"]))
    by_role: dict[str, list[Account]] = {role: [] for role in ROLES}
    for user in users:
        # The prefetched groups answer has_role without a query of its own.
        user._polis_group_names = frozenset(group.name for group in user.groups.all())
        account = Account(user, unanswered.get(user.pk, []), may_manage(viewer, user))
        for name in user._polis_group_names:
            if name in by_role:
                by_role[name].append(account)
    return list(by_role.items())
