"""What the services refuse: one exception type for every flow (import, assign, save, flag,
export), whatever page, API endpoint or command called them.

A refusal changes nothing. ``problems`` is a list of ``scoring.problems.Problem``: the field
(and, for files, the file and line) a problem is about, and its message for the person who
will read it. Messages the app makes are translated when the refusal is raised (so in the
language of the request); problems found by ``scoring`` keep its English message and their
``code``, which the app translates where people answer items. ``str(problem)`` is the line to
show (``FILE:LINE: field: message``, or just the message of a refusal about no field).
annotation/core/http.py maps a refusal to its HTTP status.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from scoring.problems import Problem


class Refused(Exception):
    """A service refused; nothing was changed. ``problems`` says why."""

    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems

    @classmethod
    def because(cls, *messages: str) -> Refused:
        """A refusal of messages about no particular field."""
        return cls([Problem(field="", message=message) for message in messages])

    @property
    def messages(self) -> list[str]:
        return [str(problem) for problem in self.problems]


class DatasetFrozen(Refused):
    """The dataset is frozen: none of its answers may change."""

    def __init__(self) -> None:
        super().__init__([Problem("", _("This dataset is frozen: its answers can no longer be changed."))])


class StaleVersion(Refused):
    """Someone saved a different answer since the version this save was based on."""

    def __init__(self, current) -> None:
        message = _(
            "This answer was changed in another tab or browser since you opened it "
            "(it is now at version %(version)s), so your change was not saved. "
            "Reload the page to see the current answer."
        ) % {"version": current.version}
        super().__init__([Problem("", message)])
        self.current = current  # the stored Annotation


class ItemWithdrawn(Refused):
    """An organizer withdrew the item: it needs no answer and takes none."""

    def __init__(self) -> None:
        super().__init__([Problem("", _("This item was withdrawn by the organizer: it needs no answer."))])


class NeedsConfirmation(Refused):
    """A submit the annotator is asked to confirm (annotation.subtasks.rules cautions): the same save,
    confirmed, is accepted."""


class NotExportable(Refused):
    """The stored answers do not make a valid submission file."""


class NotAdjudicatorHere(Refused):
    """The user may not adjudicate this dataset: they are no adjudicator, or annotate in it."""

    def __init__(self) -> None:
        super().__init__([Problem("", _("You annotate items of this dataset, so you cannot adjudicate it."))])


class ClaimedByOther(Refused):
    """Another adjudicator is working on the item (their claim has not expired)."""

    def __init__(self) -> None:
        super().__init__([Problem("", _("Another adjudicator is working on this item; it was not saved."))])


class StaleDecision(Refused):
    """The item was settled again since the version this decision was based on."""

    def __init__(self, current) -> None:
        message = _(
            "This item was settled again since you opened it (it is now at version %(version)s), "
            "so your decision was not saved. Reload the page to see the current decision."
        ) % {"version": current.version}
        super().__init__([Problem("", message)])
        self.current = current  # the stored Adjudication


class NothingToExport(NotExportable):
    """The source has no answer to export: said instead of giving an empty file."""

    def __init__(self, source: str, dataset_name: str, n_left_out: int) -> None:
        message = _("The %(source)s export of %(dataset)s has nothing in it (%(left_out)s items left out).") % {
            "source": source, "dataset": dataset_name, "left_out": n_left_out}
        super().__init__([Problem("source", message)])


class NotYoursToManage(Refused):
    """An organizer acted on an organizer's or a superuser's account: those are managed by
    superusers only (an organizer manages annotator and adjudicator accounts)."""

    def __init__(self, name: str) -> None:
        super().__init__([Problem("user", _(
            "%(name)s is an organizer or a superuser: only a superuser can change that account."
        ) % {"name": name})])


class NotQualified(Refused):
    """The annotator has not passed the dataset's training round: no real items until they
    pass it, or an organizer lets them retry or releases them."""

    def __init__(self) -> None:
        super().__init__([Problem("", _(
            "You have not passed this dataset's training round yet, so its items are closed to you. "
            "Finish the training round; if your score was below the threshold, an organizer can let "
            "you try again or release you."
        ))])
