"""Who may work on a dataset's real items: the qualification rule, written once.

A dataset without a serving training pool (none, or archived) is open to all its annotators;
otherwise the annotator's latest training round decides: released by an organizer, or finished with a score at or above
the dataset's threshold (any score when it has none).

What a round decides is one expression over the columns of the round and of its dataset
(``PASSED``, ``QUALIFIES``), from which both the SQL and the Python come: ``qualified_sql``,
the SQL the annotator's queues and the organizer's qualification table run inside their own
queries, and ``passed`` / ``qualified``, the same rule over rows already loaded. Python
evaluates the expression as SQL does, NULL being None (unknown); tests/annotate/
test_qualification.py checks that the two agree on every combination of values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from annotation.core.sql_rows import table
from annotation.models import Dataset, TrainingRound

ROUND, DATASET = "round", "dataset"  # what a column belongs to: the round, or the dataset it is a round of


@dataclass(frozen=True)
class Column:
    of: str  # ROUND or DATASET
    name: str  # the model field, whose column has the same name

    def sql(self, aliases: Mapping[str, str]) -> str:
        return f"{aliases[self.of]}.{self.name}"

    def value(self, rows: Mapping[str, object]):
        return getattr(rows[self.of], self.name)


@dataclass(frozen=True)
class IsNull:
    column: Column

    def sql(self, aliases: Mapping[str, str]) -> str:
        return f"{self.column.sql(aliases)} IS NULL"

    def value(self, rows: Mapping[str, object]) -> bool:
        return self.column.value(rows) is None


@dataclass(frozen=True)
class NotNull:
    column: Column

    def sql(self, aliases: Mapping[str, str]) -> str:
        return f"{self.column.sql(aliases)} IS NOT NULL"

    def value(self, rows: Mapping[str, object]) -> bool:
        return self.column.value(rows) is not None


@dataclass(frozen=True)
class AtLeast:
    left: Column
    right: Column

    def sql(self, aliases: Mapping[str, str]) -> str:
        return f"{self.left.sql(aliases)} >= {self.right.sql(aliases)}"

    def value(self, rows: Mapping[str, object]) -> bool | None:
        left, right = self.left.value(rows), self.right.value(rows)
        return None if left is None or right is None else left >= right


@dataclass(frozen=True)
class AllOf:
    terms: tuple

    def sql(self, aliases: Mapping[str, str]) -> str:
        return "(" + " AND ".join(term.sql(aliases) for term in self.terms) + ")"

    def value(self, rows: Mapping[str, object]) -> bool | None:
        values = [term.value(rows) for term in self.terms]
        return False if False in values else None if None in values else True


@dataclass(frozen=True)
class AnyOf:
    terms: tuple

    def sql(self, aliases: Mapping[str, str]) -> str:
        return "(" + " OR ".join(term.sql(aliases) for term in self.terms) + ")"

    def value(self, rows: Mapping[str, object]) -> bool | None:
        values = [term.value(rows) for term in self.terms]
        return True if True in values else None if None in values else False


# The round passed: finished with a score at or above the dataset's threshold (any score when it has none).
PASSED = AllOf((
    NotNull(Column(ROUND, "finished_at")),
    AnyOf((IsNull(Column(DATASET, "threshold")), AtLeast(Column(ROUND, "score"), Column(DATASET, "threshold")))),
))
# The annotator's latest round lets them work on real items: released by an organizer, or passed.
QUALIFIES = AnyOf((NotNull(Column(ROUND, "released_at")), PASSED))


def qualified_sql(annotator: str, dataset: str) -> str:
    """SQL for whether the annotator may work on the dataset's items (the arguments are SQL
    expressions): open while the dataset has no serving training pool (none, or archived:
    a round begun on an archived pool holds no one back); else the latest round decides
    (``QUALIFIES``), and no round is no pass."""
    return f"""(NOT EXISTS (SELECT 1 FROM {table(Dataset)} pool
                        WHERE pool.pool_of_id = {dataset} AND pool.pool_kind = '{Dataset.PoolKind.TRAINING}'
                          AND pool.archived_at IS NULL)
            OR COALESCE(
            (SELECT {QUALIFIES.sql({ROUND: "r", DATASET: "own"})}
             FROM {table(TrainingRound)} r JOIN {table(Dataset)} own ON own.id = r.dataset_id
             WHERE r.dataset_id = {dataset} AND r.annotator_id = {annotator}
             ORDER BY r.attempt DESC LIMIT 1), FALSE))"""


def passed(training_round: TrainingRound, dataset: Dataset) -> bool:
    """Whether the round (of ``dataset``) passed (``PASSED``)."""
    return PASSED.value({ROUND: training_round, DATASET: dataset}) is True


def qualified(latest: TrainingRound | None, dataset: Dataset, has_training_pool: bool) -> bool:
    """``qualified_sql`` over rows already loaded: ``latest`` is the annotator's latest round of
    ``dataset`` (None: they have none)."""
    decided = None if latest is None else QUALIFIES.value({ROUND: latest, DATASET: dataset})
    return not has_training_pool or bool(decided)
