"""Whose answers count (reads): every annotator's, participants of a panel study included, but
a study's preview or test entries and the participants its panel's export did not list
(annotation.models.StudyParticipant ``test``, ``unreconciled_at``). Their answers stay stored
and on the organizer's study page; exports, agreement, reports, the paper kit, the release
bundle and adjudication read only the answers that count, through these functions: the rule
is written once, as SQL, so that querysets and hand-written queries share it.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from annotation.core.sql_rows import table
from annotation.models import Annotation, StudyParticipant


def uncounted_sql() -> str:
    """SQL: the account ids (users) whose answers do not count (the rule, once)."""
    return f"SELECT n.user_id FROM {table(StudyParticipant)} n WHERE n.test OR n.unreconciled_at IS NOT NULL"


def test_entry_sql(annotator: str) -> str:
    """SQL: the account ``annotator`` (an SQL expression) is a study's preview or test entry,
    whose answers count nowhere, not even toward an item's load under routing (fixed at entry,
    unlike a reconciliation, so the load counters stay equal to the rows)."""
    return f"EXISTS (SELECT 1 FROM {table(StudyParticipant)} t WHERE t.user_id = {annotator} AND t.test)"


def counted_sql(alias: str) -> str:
    """SQL: the answer ``alias`` (a row of the answers' table) is submitted and counts."""
    return f"({alias}.status = 'submitted' AND {alias}.annotator_id NOT IN ({uncounted_sql()}))"


def counted_people(rows: QuerySet, field: str = "annotator") -> QuerySet:
    """``rows`` without those whose ``field`` (a user) does not count: answers, assignments,
    rounds, users (``field="pk"``)."""
    return rows.exclude(**{f"{field}__in": RawSQL(uncounted_sql(), ())})


def counted_answers(answers: QuerySet[Annotation] | None = None) -> QuerySet[Annotation]:
    """The submitted answers that count, of ``answers`` (default: every answer)."""
    answers = Annotation.objects.all() if answers is None else answers
    return counted_people(answers.filter(status=Annotation.Status.SUBMITTED))
