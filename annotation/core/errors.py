"""What the services refuse: one exception type for every flow (import, assign, save, flag,
export), whatever page, API endpoint or command called them.

A refusal changes nothing. ``problems`` is a list of ``scoring.problems.Problem``: the field
(and, for files, the file and line) a problem is about, its code and parameters, and its
message for the person who will read it. The app's own problems are made from a template of
annotation.core.problems.MESSAGES when the refusal is raised (so in the language of the
request); problems found by ``scoring`` keep its English message, which the app says in its
people's words from the code and parameters (annotation.subtasks.problem_texts). ``str(problem)`` is the line to
show (``FILE:LINE: field: message``, or just the message of a refusal about no field).
annotation/core/http.py maps a refusal to its HTTP status.
"""

from __future__ import annotations

from annotation.core.problems import problem
from scoring.problems import Problem


class Refused(Exception):
    """A service refused; nothing was changed. ``problems`` says why."""

    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems

    @classmethod
    def of(cls, template: str, field: str = "", **params: object) -> Refused:
        """A refusal of one problem of the app (``template``, a key of
        annotation.core.problems.MESSAGES, with ``params``)."""
        return cls([problem(template, field, **params)])

    @property
    def messages(self) -> list[str]:
        return [str(problem) for problem in self.problems]


class DatasetFrozen(Refused):
    """The dataset is frozen: none of its answers may change."""

    def __init__(self) -> None:
        super().__init__([problem("dataset_frozen")])


class StaleVersion(Refused):
    """Someone saved a different answer since the version this save was based on."""

    def __init__(self, current) -> None:
        super().__init__([problem("stale_version", version=current.version)])
        self.current = current  # the stored Annotation


class ItemWithdrawn(Refused):
    """An organizer withdrew the item: it needs no answer and takes none."""

    def __init__(self) -> None:
        super().__init__([problem("item_withdrawn")])


class NeedsConfirmation(Refused):
    """A submit the annotator is asked to confirm (annotation.subtasks.rules cautions): the same save,
    confirmed, is accepted."""


class NotExportable(Refused):
    """The stored answers do not make a valid submission file."""


class NotAdjudicatorHere(Refused):
    """The user may not adjudicate this dataset: they are no adjudicator, or annotate in it."""

    def __init__(self) -> None:
        super().__init__([problem("not_adjudicator_here")])


class ClaimedByOther(Refused):
    """Another adjudicator is working on the item (their claim has not expired)."""

    def __init__(self) -> None:
        super().__init__([problem("claimed_by_other")])


class StaleDecision(Refused):
    """The item was settled again since the version this decision was based on."""

    def __init__(self, current) -> None:
        super().__init__([problem("stale_decision", version=current.version)])
        self.current = current  # the stored Adjudication


class NothingToExport(NotExportable):
    """The source has no answer to export: said instead of giving an empty file."""

    def __init__(self, source: str, dataset_name: str, n_left_out: int) -> None:
        super().__init__([problem("nothing_to_export", "source", source=source, dataset=dataset_name,
                                  left_out=n_left_out)])


class NotYoursToManage(Refused):
    """An organizer acted on an organizer's or a superuser's account: those are managed by
    superusers only (an organizer manages annotator and adjudicator accounts)."""

    def __init__(self, name: str) -> None:
        super().__init__([problem("not_yours_to_manage", "user", name=name)])


class NotQualified(Refused):
    """The annotator has not passed the dataset's training round: no real items until they
    pass it, or an organizer lets them retry or releases them."""

    def __init__(self) -> None:
        super().__init__([problem("not_qualified")])
