"""Pseudonyms of a campaign's people, "A1".."An" (services: the writes of Pseudonym).

A person keeps their pseudonym in a campaign once given: a paper kit or release bundle made
again, after more annotators joined, or a panel study's participant named when they entered,
is named as before (newcomers get the next numbers, by username)."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max

from annotation.models import Campaign, Pseudonym


def campaign_pseudonyms(campaign: Campaign, usernames: Iterable[str]) -> dict[str, str]:
    """username -> "A<n>" for ``usernames`` (and everyone named before in the campaign), giving
    the next numbers to those without one, in username order. Two concurrent calls never give
    one number twice (the constraints); the loser reads the winner's."""
    wanted = sorted(set(usernames))
    for _attempt in range(3):
        try:
            with transaction.atomic():
                known = dict(Pseudonym.objects.filter(campaign=campaign).values_list("user__username", "number"))
                missing = [name for name in wanted if name not in known]
                if missing:
                    users = dict(User.objects.filter(username__in=missing).values_list("username", "pk"))
                    start = (Pseudonym.objects.filter(campaign=campaign).aggregate(top=Max("number"))["top"] or 0) + 1
                    rows = [Pseudonym(campaign=campaign, user_id=users[name], number=start + offset)
                            for offset, name in enumerate(name for name in missing if name in users)]
                    Pseudonym.objects.bulk_create(rows)
                    known.update({name: row.number for name, row in zip((n for n in missing if n in users), rows)})
            return {name: f"A{number}" for name, number in known.items()}
        except IntegrityError:
            continue  # another request gave numbers meanwhile: read them
    raise RuntimeError("pseudonyms could not be given")  # three lost races in a row: a bug, not a user's fault
