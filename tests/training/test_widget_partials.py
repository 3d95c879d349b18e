"""A training item's widget asks its page for its partials as on the item page, and gets the
same reply (the page's own URL, the same view pattern)."""

import json

import pytest
from django.urls import reverse

from annotation.models import Dataset
from annotation.subtasks.widgets import widget_for
from scoring.subtasks import SUBTASKS
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import assigned_item, htmx_post
from tests.training.conftest import make_pool
from tests.widgets import test_discourse, test_morphosyntax, test_numerals

pytestmark = pytest.mark.django_db

DISCOURSE_RECORD = test_discourse.passage(5)
DISCOURSE_DRAFT = {"discourse_units": [
    {"du_id": "1.1", "head": None, "relation": None},
    {"du_id": "3.1", "head": "4.1", "relation": "Cause"},
    {"du_id": "4.1", "head": "3.1", "relation": None},
]}

# Per subtask whose widget has partials: a training item, and what the widget posts to each partial.
PARTIAL_REQUESTS = {
    "morphosyntax": (test_morphosyntax.RECORD, {"diff": {"corrected_sentence": test_morphosyntax.CORRECTED}}),
    "numerals": (test_numerals.RECORD, {"form_check": {"numeral": "dwudziesu tysięcy"}}),
    "discourse": (DISCOURSE_RECORD, {"tree": {"answer": json.dumps(DISCOURSE_DRAFT)}}),
}


def test_every_widget_with_partials_is_tried_here():
    assert set(PARTIAL_REQUESTS) == {key for key in SUBTASKS if widget_for(key).partials}
    for key, (_record, requests) in PARTIAL_REQUESTS.items():
        assert set(requests) == set(widget_for(key).partials)


def training_item_of(subtask: str, record: dict):
    """A dataset with a one-item training pool of ``record``; its annotator logged in; the
    training item's URL."""
    dataset = make_dataset(subtask, [{**record, "id": "real-1"}])
    make_pool(dataset, Dataset.PoolKind.TRAINING, [record], [{"id": record["id"]}])
    annotator = make_user("annotator")
    assign_in_order(dataset, annotator)
    return dataset, annotator, reverse("training_item", args=[dataset.pk, 1])


@pytest.mark.parametrize("subtask", PARTIAL_REQUESTS)
def test_a_training_items_widget_gets_its_partials_as_on_the_item_page(subtask, client):
    record, requests = PARTIAL_REQUESTS[subtask]
    _dataset, annotator, url = training_item_of(subtask, record)
    client.force_login(annotator)
    page = client.get(url).content.decode()
    on_item_page = assigned_item(subtask, record)
    for name, data in requests.items():
        partial_url = f"{url}?partial={name}"
        assert partial_url in page  # where the widget sends its request
        reply = htmx_post(client, partial_url, data)
        assert reply.status_code == 200, reply.content
        expected = on_item_page.partial(on_item_page.client(), name, data)
        assert reply.content.decode() == expected.content.decode()


def test_a_partial_the_widget_has_not_or_of_another_annotators_round_is_404(client):
    record, requests = PARTIAL_REQUESTS["morphosyntax"]
    _dataset, annotator, url = training_item_of("morphosyntax", record)
    client.force_login(annotator)
    assert htmx_post(client, f"{url}?partial=no-such-partial", {}).status_code == 404
    client.force_login(make_user("annotator"))  # no assignment in the dataset
    assert htmx_post(client, f"{url}?partial=diff", requests["diff"]).status_code == 404
