"""A training round is stored by the annotator's first training answer, never by a page: the
pages draw a round not started yet as a fresh one."""

import json
import re

import pytest
from django.urls import reverse

from annotation.datasets.assigning import assign
from annotation.models import TrainingAnswer, TrainingRound
from annotation.training import services as training_service

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(dataset, training_pool, annotator, client):
    assign(dataset, [annotator], 1)
    client.force_login(annotator)
    return dataset, annotator, client


def test_the_training_pages_and_the_home_page_store_no_round(setup):
    dataset, annotator, client = setup
    before = TrainingRound.objects.count()
    assert client.get(reverse("home")).status_code == 200
    start = client.get(reverse("training_round", args=[dataset.pk]))
    assert start.status_code == 302 and start.url == reverse("training_item", args=[dataset.pk, 1])
    for number in (1, 2, 3):
        assert client.get(reverse("training_item", args=[dataset.pk, number])).status_code == 200
    # A draft is kept in the browser only: nothing stored.
    draft = client.post(reverse("training_item", args=[dataset.pk, 1]), {"intent": "draft", "answer": "{}"})
    assert draft.status_code == 204
    assert client.get(reverse("annotate_continue", args=[dataset.pk])).status_code == 302
    assert client.get(reverse("home")).status_code == 200
    assert TrainingRound.objects.count() == before
    assert not TrainingRound.objects.filter(annotator=annotator).exists()


def _comparable(html: str) -> str:
    """The page without what differs between any two responses (CSRF tokens, CSP nonces)
    and without the key of the browser's draft, which names the round."""
    html = re.sub(r'(name="csrfmiddlewaretoken"\s+value=")[^"]*(")', r"\1<CSRF>\2", html)
    html = re.sub(r'("X-CSRFToken"\s*:\s*")[^"]*(")', r"\1<CSRF>\2", html)
    html = re.sub(r'(\bnonce=")[^"]*(")', r"\1<NONCE>\2", html)
    return re.sub(r'("storageKey": ")training:[0-9:]+(")', r"\1<KEY>\2", html)


def test_a_round_not_started_is_drawn_as_a_freshly_started_one(setup):
    dataset, annotator, client = setup
    url = reverse("training_item", args=[dataset.pk, 1])
    not_started = client.get(url).content.decode()
    item = training_pool_item(dataset, 1)
    assert f'"storageKey": "training:{dataset.pk}:{annotator.pk}:1:{item.pk}"' in not_started
    started = training_service.current_round(dataset, annotator)
    fresh = client.get(url).content.decode()
    assert f'"storageKey": "training:{started.pk}:{item.pk}"' in fresh
    assert _comparable(not_started) == _comparable(fresh)


def training_pool_item(dataset, number: int):
    return dataset.pools.get().items.order_by("ordinal")[number - 1]


def test_the_first_answer_starts_the_round_and_a_refused_one_does_not(setup):
    dataset, annotator, client = setup
    url = reverse("training_item", args=[dataset.pk, 1])
    refused = client.post(url, {"intent": "submit", "answer": "{}"})
    assert refused.status_code == 422
    assert not TrainingRound.objects.exists()
    answered = client.post(url, {"intent": "submit", "answer": json.dumps({"answer": "B"})})
    assert answered.status_code == 302
    (training_round,) = TrainingRound.objects.filter(annotator=annotator, dataset=dataset)
    assert training_round.attempt == 1
    assert list(TrainingAnswer.objects.filter(round=training_round).values_list("item__external_id", flat=True)) == ["train-1"]
    # The next answer goes to the same round.
    client.post(reverse("training_item", args=[dataset.pk, 2]), {"intent": "submit", "answer": json.dumps({"answer": "B"})})
    assert TrainingRound.objects.count() == 1 and training_round.answers.count() == 2


def test_a_training_answer_nested_too_deeply_is_refused_as_too_deep(setup):
    # As on the item page (one reading of posted JSON: annotation.core.http.posted_json).
    dataset, _, client = setup
    response = client.post(reverse("training_item", args=[dataset.pk, 1]), {"intent": "submit", "answer": "[" * 100_000})
    assert response.status_code == 422
    assert "nested too deeply" in response.content.decode()
    assert not TrainingRound.objects.exists()
