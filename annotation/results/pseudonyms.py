"""The report's JSON with every username replaced by its campaign pseudonym (given by
annotation.accounts.pseudonyms)."""

from __future__ import annotations

import re
from collections.abc import Iterable

# Keys whose values are never a username: the application's prose (notes, titles, sentences),
# and names and ids of data (a dataset, an item id equal to someone's username stays itself).
PROSE_KEYS = frozenset({"note", "notes", "banner", "title", "subtask_title", "sentence", "mcnemar_figure", "scored_on",
                        "dataset", "campaign", "subtask", "ids", "complete_items"})


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
