"""The demo's training and control pools (load_demo, demo/pools.json): items of the sample data
kept out of the dataset, Polish explanations, the threshold and control settings, control
items in the demo annotators' queues and the training round first; run again, it adds only
what is missing."""

import json
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Dataset, Explanation, GoldAnswer, Item
from annotation.training.selectors import pool, training_items

pytestmark = pytest.mark.django_db

POOLS = json.loads((settings.BASE_DIR / "demo" / "pools.json").read_text(encoding="utf-8"))
POLISH_LETTERS = set("ąćęłńóśźż")


def load_demo(*args) -> str:
    out = StringIO()
    call_command("load_demo", *args, stdout=out)
    return out.getvalue()


def demo_state() -> tuple:
    return (Dataset.objects.count(), Item.objects.count(), GoldAnswer.objects.count(), Explanation.objects.count(),
            Assignment.objects.count())


def test_at_least_two_demo_datasets_have_a_training_round_with_explanations_and_control_items():
    load_demo()
    with_pools = Dataset.objects.filter(pools__pool_kind=Dataset.PoolKind.TRAINING).distinct()
    assert sorted(dataset.subtask for dataset in with_pools) == sorted(POOLS) and len(POOLS) >= 2
    for dataset in with_pools:
        spec = POOLS[dataset.subtask]
        assert dataset.name == f"demo-{dataset.subtask}"
        assert (dataset.threshold, dataset.control_rate) == (spec["threshold"], spec["control_rate"])
        training = training_items(dataset)
        assert [item.external_id for item in training] == [entry["id"] for entry in spec["training"]]
        for item in training:
            assert item.gold is not None
            assert set(item.explanation.text.lower()) & POLISH_LETTERS, item.explanation.text
        control = pool(dataset, Dataset.PoolKind.CONTROL)
        assert sorted(control.items.values_list("external_id", flat=True)) == sorted(spec["control"])
        assert not control.items.filter(gold__isnull=True).exists()
        # The pools' sentences are not among the dataset's own items.
        own = set(dataset.items.values_list("external_id", flat=True))
        pooled = {entry["id"] for entry in spec["training"]} | set(spec["control"])
        assert own and not own & pooled
        for username in ("annotator1", "annotator2", "annotator3"):
            queue = Assignment.objects.filter(dataset=dataset, annotator__username=username)
            assert queue.filter(item__dataset=control).exists(), username
            assert queue.filter(item__dataset=dataset).count() > 0
    # The demo annotators meet the training round first.
    client = Client()
    client.force_login(Assignment.objects.filter(annotator__username="annotator1").first().annotator)
    for dataset in with_pools:
        assert client.get(reverse("annotate_continue", args=[dataset.pk])).url == reverse("training_round", args=[dataset.pk])


def test_run_again_the_demo_adds_only_what_is_missing(tmp_path):
    # A demo loaded before it had pools: its datasets hold every sample item.
    no_pools = tmp_path / "no-pools.json"
    no_pools.write_text("{}", encoding="utf-8")
    load_demo("--pools", str(no_pools))
    assert not Dataset.objects.exclude(pool_of=None).exists()
    before = Assignment.objects.count()

    # Its datasets hold the pools' items, which no pool may share (the training round would
    # show the gold of items to annotate): no pools are added, and the output says why.
    out = load_demo()
    for subtask in POOLS:
        dataset = Dataset.objects.get(name=f"demo-{subtask}")
        assert f"{dataset.name}: holds the pools' items, so no pools are added" in out
        assert training_items(dataset) == []
    assert Assignment.objects.count() == before  # the queues made before stay as they were
    state = demo_state()

    # The organizer changes the demo's settings; a further run keeps them and adds nothing.
    changed = Dataset.objects.get(name=f"demo-{next(iter(POOLS))}")
    changed.threshold = 0.9
    changed.save()
    out = load_demo()
    assert "items imported" not in out
    assert demo_state() == state
    changed.refresh_from_db()
    assert changed.threshold == 0.9


def test_a_pool_item_missing_from_the_sample_data_stops_the_demo(tmp_path):
    spec = {"wsd": {**POOLS["wsd"], "control": ["no-such-item"]}}
    broken = tmp_path / "pools.json"
    broken.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(CommandError, match="no-such-item"):
        load_demo("--pools", str(broken))
    assert not Dataset.objects.exists()
