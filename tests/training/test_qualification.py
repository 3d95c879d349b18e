"""Training rounds: feedback after the answer, the threshold on pages and API, retry, release."""

import json
import re
import statistics

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.datasets.assigning import assign
from annotation.models import Annotation, TrainingAnswer, TrainingRound
from annotation.results.agreement import dataset_answers
from annotation.results.exporting import build_submission
from annotation.training import services as training_service
from annotation.training.selectors import training_items
from tests.training.conftest import EXPLANATION_MARK
from tests.writes import rows_written, tables_written

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(dataset, training_pool, annotator, client):
    dataset.threshold = 0.8
    dataset.save()
    assign(dataset, [annotator], 1)
    client.force_login(annotator)
    return dataset, annotator, client


def answer_round(client, dataset, letters):
    for number, letter in enumerate(letters, 1):
        response = client.post(
            reverse("training_item", args=[dataset.pk, number]),
            {"intent": "submit", "answer": json.dumps({"answer": letter})},
        )
        assert response.status_code == 302, response.content


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def real_items_refused(client, dataset, annotator):
    page = client.get(reverse("annotate_item", args=[dataset.pk, 1]))
    items = api(annotator).get(reverse("api_dataset_items", args=[dataset.pk]))
    item = dataset.items.first()
    saved = api(annotator).post(reverse("api_annotations"), {"item": item.pk, "answer": {"answer": "A"},
                                                             "status": "submitted", "version": 0}, format="json")
    refused = [response.status_code for response in (page, items, saved)] == [403, 403, 403]
    if refused:
        assert "training round" in page.content.decode()
        assert "training round" in items.json()["detail"]
        assert "training round" in saved.json()["detail"]
    return refused


def test_an_annotator_starts_with_the_training_round_and_below_the_threshold_gets_no_real_items(setup):
    dataset, annotator, client = setup
    assert client.get(reverse("annotate_continue", args=[dataset.pk])).url == reverse("training_round", args=[dataset.pk])
    assert real_items_refused(client, dataset, annotator)
    answer_round(client, dataset, "BBA")  # 2 of 3 right: 0.667 < 0.8
    training_round = TrainingRound.objects.get(annotator=annotator)
    assert training_round.score == pytest.approx(2 / 3) and training_round.finished_at
    outcome = client.get(reverse("training_round", args=[dataset.pk]))
    assert "below the threshold" in outcome.content.decode()
    assert real_items_refused(client, dataset, annotator)
    assert not Annotation.objects.exists()


def test_the_training_pages_write_nothing_the_first_answer_starts_the_round(setup):
    dataset, annotator, client = setup
    urls = [reverse("annotate_continue", args=[dataset.pk]), reverse("training_round", args=[dataset.pk]),
            *(reverse("training_item", args=[dataset.pk, number]) for number in (1, 2))]
    before = rows_written()
    assert all(client.get(url).status_code in (200, 302) for url in urls)
    assert tables_written(before) == set() and not TrainingRound.objects.exists()
    answer_round(client, dataset, "A")
    before = rows_written()
    assert all(client.get(url).status_code in (200, 302) for url in urls)
    assert tables_written(before) == set() and TrainingRound.objects.get(annotator=annotator)


def test_a_retry_is_a_fresh_round_and_passing_it_opens_the_items(setup):
    dataset, annotator, client = setup
    answer_round(client, dataset, "AAA")
    training_service.allow_retry(dataset, annotator)
    assert real_items_refused(client, dataset, annotator)
    answer_round(client, dataset, "BBB")
    assert list(TrainingRound.objects.values_list("attempt", "score")) == [(1, 0.0), (2, 1.0)]
    assert client.get(reverse("annotate_item", args=[dataset.pk, 1])).status_code == 200
    assert api(annotator).get(reverse("api_dataset_items", args=[dataset.pk])).status_code == 200
    assert not real_items_refused(client, dataset, annotator)


def test_a_released_annotator_works_whatever_their_score(setup, organizer):
    dataset, annotator, client = setup
    answer_round(client, dataset, "AAA")
    training_service.release_from_training(dataset, annotator, organizer)
    assert client.get(reverse("annotate_item", args=[dataset.pk, 1])).status_code == 200


def test_a_finished_round_takes_no_more_answers_and_an_item_is_answered_once(setup):
    dataset, annotator, client = setup
    answer_round(client, dataset, "B")
    again = client.post(reverse("training_item", args=[dataset.pk, 1]),
                        {"intent": "submit", "answer": json.dumps({"answer": "A"})})
    assert again.status_code == 422
    assert TrainingAnswer.objects.get().answer == {"answer": "B"}


def test_feedback_shows_the_gold_only_after_the_answer_and_only_for_training_items(setup):
    dataset, annotator, client = setup
    before = client.get(reverse("training_item", args=[dataset.pk, 1])).content.decode()
    assert EXPLANATION_MARK not in before and "training-feedback" not in before
    client.post(reverse("training_item", args=[dataset.pk, 1]), {"intent": "submit", "answer": json.dumps({"answer": "C"})})
    after = client.get(reverse("training_item", args=[dataset.pk, 1])).content.decode()
    assert EXPLANATION_MARK in after and 'id="training-gold"' in after
    # Each letter with the sentence it stands for, as the item's cards show it.
    assert 'id="training-gold"><strong>B</strong> ' in after and 'id="training-yours"><strong>C</strong> ' in after
    item = training_items(dataset)[0]
    candidate = re.sub(r"\[\[/?TARGET\]\]", "", item.payload["candidates"]["B"]).split()[0]
    assert candidate in after[after.index('id="training-gold"'):]
    # the next item's gold is still hidden
    assert "training-feedback" not in client.get(reverse("training_item", args=[dataset.pk, 2])).content.decode()
    # and the pools are no dataset of the annotator's: no items, no answers through the API
    pool = dataset.pools.get()
    assert api(annotator).get(reverse("api_dataset_items", args=[pool.pk])).status_code == 404


def test_an_invalid_training_answer_is_refused_and_stores_nothing(setup):
    dataset, annotator, client = setup
    response = client.post(reverse("training_item", args=[dataset.pk, 1]),
                           {"intent": "submit", "answer": json.dumps({"answer": "Z"})})
    assert response.status_code == 422
    assert not TrainingAnswer.objects.exists()


def test_training_answers_count_nowhere(setup):
    dataset, annotator, client = setup
    answer_round(client, dataset, "BBB")
    assert not Annotation.objects.exists()
    assert build_submission(dataset, annotator).lines == []
    assert dataset_answers(dataset).submitted == {} or not any(dataset_answers(dataset).submitted.values())


def test_a_dataset_without_training_pool_is_open_at_once(dataset, annotator, client):
    assign(dataset, [annotator], 1)
    client.force_login(annotator)
    assert client.get(reverse("annotate_item", args=[dataset.pk, 1])).status_code == 200
    assert client.get(reverse("training_round", args=[dataset.pk])).status_code == 404


def test_other_annotators_and_organizers_cannot_reach_a_training_round(setup, organizer, client):
    dataset, annotator, _ = setup
    client.force_login(organizer)
    assert client.get(reverse("training_item", args=[dataset.pk, 1])).status_code == 403


def test_an_explanation_written_on_the_organizers_page_is_shown_with_the_feedback(setup, organizer):
    dataset, annotator, client = setup
    second = dataset.pools.get().items.get(external_id="train-2")
    organizer_client = Client()
    organizer_client.force_login(organizer)
    page = organizer_client.get(reverse("organizer_training", args=[dataset.pk])).content.decode()
    assert EXPLANATION_MARK in page  # the imported one, editable
    saved = organizer_client.post(reverse("organizer_training", args=[dataset.pk]),
                                  {"action": "explanation", "item": second.pk, "text": "  Bo tak.  "})
    assert saved.status_code == 302
    answer_round(client, dataset, "BB")
    assert "Bo tak." in client.get(reverse("training_item", args=[dataset.pk, 2])).content.decode()
    real_item = dataset.items.first()
    refused = organizer_client.post(reverse("organizer_training", args=[dataset.pk]),
                                    {"action": "explanation", "item": real_item.pk, "text": "x"})
    assert refused.status_code == 404


def test_a_rounds_score_is_the_exact_mean_of_its_items(setup):
    # Fractional correctness (a discourse passage's LAS) stored for two items: summed in the
    # order the rows come, (1/3 + 5/6 + 1) / 3 is 0.7222222222222223; fmean's exact sum gives
    # 0.7222222222222222.
    dataset, annotator, client = setup
    training_round = training_service.current_round(dataset, annotator)
    items = list(dataset.pools.get().items.order_by("ordinal"))
    for item, correctness in zip(items, [1 / 3, 5 / 6]):
        TrainingAnswer.objects.create(round=training_round, item=item, answer={"answer": "A"}, correctness=correctness)
    training_service.answer_training_item(round=training_round, item=items[2], answer={"answer": "B"})
    training_round.refresh_from_db()
    assert training_round.score == statistics.fmean([1 / 3, 5 / 6, 1.0]) == 0.7222222222222222


def test_the_home_page_sends_to_the_training_round_until_it_is_passed_and_the_api_says_so(setup):
    dataset, annotator, client = setup

    def listed():
        return [(entry["name"], entry["qualified"]) for entry in api(annotator).get(reverse("api_datasets")).json()]

    home = client.get(reverse("home")).content.decode()
    assert "training round first" in home and f'href="{reverse("training_round", args=[dataset.pk])}"' in home
    assert listed() == [(dataset.name, False)]
    answer_round(client, dataset, "BBB")
    home = client.get(reverse("home")).content.decode()
    assert "training round first" not in home
    assert f'href="{reverse("annotate_continue", args=[dataset.pk])}"' in home
    assert listed() == [(dataset.name, True)]
