"""manage.py qualification: the procedure shown and set from the command line, as on the page."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.annotate import queue as queues
from annotation.datasets.assigning import assign
from annotation.models import Dataset, TrainingRound
from annotation.training import services as training
from annotation.training.selectors import training_procedure
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("qualification", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def finish_round(dataset, annotator, letter: str) -> None:
    training_round = training.current_round(dataset, annotator)
    for item in training_round.dataset.pools.get(pool_kind=Dataset.PoolKind.TRAINING).items.order_by("ordinal"):
        training.answer_training_item(round=training_round, item=item, answer={"answer": letter})


def test_settings_change_only_what_is_given(dataset, training_pool):
    run(dataset.name, "--threshold", "0.8", "--control-rate", "20", "--control-seed", "s1")
    dataset.refresh_from_db()
    assert (dataset.threshold, dataset.control_rate, dataset.control_seed) == (0.8, 20, "s1")
    run(dataset.name, "--control-rate", "0")
    dataset.refresh_from_db()
    assert (dataset.threshold, dataset.control_rate, dataset.control_seed) == (0.8, 0, "s1")
    run(dataset.name, "--no-threshold")
    dataset.refresh_from_db()
    assert (dataset.threshold, dataset.control_rate, dataset.control_seed) == (None, 0, "s1")


def test_retry_and_release_open_the_items_as_on_the_page(dataset, training_pool, annotator, organizer):
    other = make_user("annotator")
    assign(dataset, [annotator, other], 1)
    run(dataset.name, "--threshold", "0.8")
    finish_round(dataset, annotator, "A")  # gold is B: 0.0
    finish_round(dataset, other, "A")
    assert not queues.is_qualified(annotator, dataset.pk)

    out, _ = run(dataset.name, "--retry", annotator.username, "--release", other.username, "--by", organizer.username)
    assert out.splitlines() == [f"{annotator.username}: a fresh training round (try 2)", f"{other.username}: released"]
    finish_round(dataset, annotator, "B")
    assert queues.is_qualified(annotator, dataset.pk) and queues.is_qualified(other, dataset.pk)
    assert TrainingRound.objects.get(annotator=other).released_by == organizer

    shown, _ = run(dataset.name)
    assert f"{dataset.name} (wsd): 3 training items, threshold 0.8, control items none (0 in the pool)" in shown
    assert f"{annotator.username}\t0.000 1.000\t2\tno\t0\t—" in shown
    assert f"{other.username}\t0.000\t—\tyes\t0\t—" in shown
    as_json, _ = run(dataset.name, "--json")
    dataset.refresh_from_db()
    assert json.loads(as_json) == training_procedure(dataset)


def test_a_refused_part_changes_nothing(dataset, training_pool, annotator, capsys):
    assign(dataset, [annotator], 1)
    stranger = make_user("annotator")
    with pytest.raises(CommandError):
        call_command("qualification", dataset.name, "--threshold", "0.8", "--release", stranger.username)
    assert f"{stranger.username} has no items of this dataset." in capsys.readouterr().err
    dataset.refresh_from_db()
    assert dataset.threshold is None and not TrainingRound.objects.exists()

    with pytest.raises(CommandError):
        call_command("qualification", dataset.name, "--threshold", "1.5")
    assert "threshold: The threshold is a share between 0 and 1" in capsys.readouterr().err
    with pytest.raises(CommandError):
        call_command("qualification", dataset.name, "--retry", annotator.username)
    assert f"{annotator.username} has not started the training round yet." in capsys.readouterr().err
    with pytest.raises(CommandError, match="is a training pool"):
        call_command("qualification", training_pool.name)
    dataset.refresh_from_db()
    assert dataset.threshold is None and not TrainingRound.objects.exists()
