"""annotation.annotate.qualification: the SQL and the Python of the qualification rule agree."""

import itertools
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from annotation.annotate import qualification
from annotation.annotate.queue import is_qualified
from annotation.models import Dataset, TrainingRound
from annotation.training.selectors import qualification_table
from tests.annotate.conftest import wsd_records
from tests.factories import make_dataset
from tests.training.conftest import make_pool

pytestmark = pytest.mark.django_db

NOW = timezone.now()
DATES = (None, NOW)
SHARES = (None, 0.0, 0.5, 0.8, 1.0)
ALIASES = {qualification.ROUND: "r", qualification.DATASET: "own"}


def sql_values(released_at, finished_at, score, threshold) -> tuple:
    """PASSED and QUALIFIES as the database evaluates them on these values (None: NULL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {qualification.PASSED.sql(ALIASES)}, {qualification.QUALIFIES.sql(ALIASES)}"
            " FROM (SELECT CAST(%s AS TIMESTAMP) AS released_at, CAST(%s AS TIMESTAMP) AS finished_at,"
            " CAST(%s AS DOUBLE PRECISION) AS score) r, (SELECT CAST(%s AS DOUBLE PRECISION) AS threshold) own",
            [released_at, finished_at, score, threshold],
        )
        return tuple(None if value is None else bool(value) for value in cursor.fetchone())  # SQLite: 0/1


def test_the_sql_and_the_python_of_a_round_agree_on_every_combination_of_values():
    # NULL scores of finished rounds too, which the database's constraints refuse: unknown in both.
    for released_at, finished_at, score, threshold in itertools.product(DATES, DATES, SHARES, SHARES):
        rows = {qualification.ROUND: SimpleNamespace(released_at=released_at, finished_at=finished_at, score=score),
                qualification.DATASET: SimpleNamespace(threshold=threshold)}
        python = (qualification.PASSED.value(rows), qualification.QUALIFIES.value(rows))
        assert sql_values(released_at, finished_at, score, threshold) == python, (released_at, finished_at, score, threshold)


def test_the_rule_reads_as_before():
    assert qualification.QUALIFIES.sql(ALIASES) == (
        "(r.released_at IS NOT NULL OR (r.finished_at IS NOT NULL AND (own.threshold IS NULL OR r.score >= own.threshold)))"
    )


# A round: (released, finished with this score; None: not finished).
ROUND_KINDS = [(released, score) for released in (False, True) for score in (None, 0.5, 0.8, 1.0)]
BEST, WORST = (True, 1.0), (False, 0.0)


def histories() -> list[list[tuple]]:
    """Every latest round alone and after an earlier one that would decide otherwise; none."""
    return [[]] + [[*earlier, latest] for latest in ROUND_KINDS for earlier in ([], [BEST], [WORST])]


def test_the_queues_and_the_organizers_table_decide_as_the_python_rule():
    histories_ = histories()
    users = [User.objects.create(username=f"q{number}") for number in range(len(histories_))]
    datasets = []
    for threshold, with_pool in itertools.product((None, 0.8), (False, True)):
        dataset = make_dataset("wsd", wsd_records(1))
        dataset.threshold = threshold
        dataset.save()
        if with_pool:
            make_pool(dataset, Dataset.PoolKind.TRAINING, [{**wsd_records(1)[0], "id": "train-1"}], [{"id": "train-1", "answer": "B"}])
        datasets.append((dataset, with_pool))
        TrainingRound.objects.bulk_create(
            TrainingRound(dataset=dataset, annotator=user, attempt=attempt,
                          released_at=NOW if released else None, score=score,
                          finished_at=None if score is None else NOW - timedelta(minutes=attempt))
            for user, history in zip(users, histories_) for attempt, (released, score) in enumerate(history, 1)
        )
    for dataset, with_pool in datasets:
        rounds = {}
        for training_round in TrainingRound.objects.filter(dataset=dataset).order_by("attempt"):
            rounds.setdefault(training_round.annotator_id, []).append(training_round)
        expected = {user.pk: qualification.qualified(rounds[user.pk][-1] if user.pk in rounds else None, dataset, with_pool)
                    for user in users}
        assert {user.pk: is_qualified(user, dataset.pk) for user in users} == expected
        table = qualification_table(dataset)  # the annotators with a round
        assert {row.annotator.pk: row.qualified for row in table} == {pk: expected[pk] for pk in rounds}
        for row in table:
            passed = [r.attempt for r in row.rounds if r.finished_at is not None
                      and (dataset.threshold is None or r.score >= dataset.threshold)]
            assert row.qualified_on == (passed[0] if passed else None)
        # The rule as it reads: open without a serving training pool (rounds begun on a pool
        # archived since hold no one back); else the latest round decides, no round no pass.
        assert expected[users[0].pk] is not with_pool
        for user, history in zip(users[1:], histories_[1:]):
            released, score = history[-1]
            assert expected[user.pk] is (not with_pool or released
                                         or (score is not None and (dataset.threshold is None or score >= dataset.threshold)))
