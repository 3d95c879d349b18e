"""Whose answers count (reads): every annotator's, participants of a panel study included, but
a study's preview or test entries and the participants its panel's export did not list
(annotation.models.StudyParticipant ``test``, ``unreconciled_at``). Their answers stay stored
and on the organizer's study page; exports, agreement, reports, the paper kit, the release
bundle and adjudication read only the answers that count, through these functions: the rule
is written once, as SQL, so that querysets and hand-written queries share it. Routing's load
counters follow it too: only an answer that counts adds to an item's load
(annotation.annotate.routing), and a reconciliation counts the items again.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from annotation.core.sql_rows import table
from annotation.models import Annotation, StudyParticipant

# The rule, once: a participant row whose account's answers do not count.
UNCOUNTED = "({row}.test OR {row}.unreconciled_at IS NOT NULL)"


def uncounted_sql() -> str:
    """SQL: the account ids (users) whose answers do not count."""
    return f"SELECT n.user_id FROM {table(StudyParticipant)} n WHERE {UNCOUNTED.format(row='n')}"


def uncounted_person_sql(annotator: str) -> str:
    """SQL: the account ``annotator`` (an SQL expression) is one whose answers do not count,
    looked up by its key (routing's count of each submitted answer asks it)."""
    return (f"EXISTS (SELECT 1 FROM {table(StudyParticipant)} t"
            f" WHERE t.user_id = {annotator} AND {UNCOUNTED.format(row='t')})")


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
