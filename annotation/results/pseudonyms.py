"""Pseudonyms of a campaign's people, "A1".."An" (services: the writes of Pseudonym), and the
report's JSON with every username replaced by its pseudonym.

A person keeps their pseudonym in a campaign once given: a paper kit or release bundle made
again, or after more annotators joined, names everyone as before (newcomers get the next
numbers, by username)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max

from annotation.models import Campaign, Pseudonym

# Keys whose values are never a username: the application's prose (notes, titles, sentences),
# and names and ids of data (a dataset, an item id equal to someone's username stays itself).
PROSE_KEYS = frozenset({"note", "notes", "banner", "title", "subtask_title", "sentence", "mcnemar_figure", "scored_on",
                        "dataset", "campaign", "subtask", "ids", "complete_items"})


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


def _pattern(names: Iterable[str]) -> re.Pattern | None:
    ordered = sorted(set(names), key=len, reverse=True)  # "ala.k" before "ala"
    if not ordered:
        return None
    # A username stands alone or between the separators of sources and file names ("annotator:x",
    # "annotator-x", "dataset.x.submission.jsonl"), never inside a longer word or username.
    return re.compile(r"(?<![\w@+])(?:" + "|".join(map(re.escape, ordered)) + r")(?![\w@+])")


def pseudonymised(value, names: dict[str, str], pattern: re.Pattern | None = None):
    """``value`` (JSON: dicts, lists, strings, numbers) with each username of ``names`` replaced
    by its pseudonym, in strings and keys, except the application's own prose (PROSE_KEYS)."""
    pattern = pattern or _pattern(names)
    if pattern is None:
        return value
    if isinstance(value, str):
        return pattern.sub(lambda match: names[match.group(0)], value)
    if isinstance(value, list):
        return [pseudonymised(item, names, pattern) for item in value]
    if isinstance(value, dict):
        return {pseudonymised(key, names, pattern): item if key in PROSE_KEYS else pseudonymised(item, names, pattern)
                for key, item in value.items()}
    return value


def report_people(report: dict) -> set[str]:
    """The usernames a dataset report or campaign table names: its annotators' sources, their
    training and control rows and their time."""
    people = set()
    for dataset in report.get("datasets", [report]):
        people.update(row["name"] for row in dataset["sources"] if row["kind"] == "annotator" and "name" in row)
        people.update(row["source"].partition(":")[2] for row in dataset["sources"] if row["kind"] == "annotator")
        people.update(row["annotator"] for row in dataset["procedure"]["annotators"])
        people.update(row["annotator"] for row in dataset["time"]["per_annotator"])
    return people
