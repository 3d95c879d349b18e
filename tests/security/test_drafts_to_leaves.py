"""Drafts are checked to the leaves of their subtask's schema (incomplete is fine, a wrong type
anywhere is not), on the item page and through the API alike; nothing wrong is stored."""

import json

import pytest

from annotation.models import Annotation
from tests.item_pages import htmx_post
from tests.security.conftest import make_queue

pytestmark = pytest.mark.django_db

WRONG_DRAFTS = {
    "discourse": [
        {"discourse_units": [{"du_id": [], "head": None, "relation": None}]},
        {"discourse_units": [{"du_id": "1", "head": 7, "relation": None}]},
        {"discourse_units": [{"du_id": "1", "head": None, "relation": ["Cause"]}]},
        {"discourse_units": [1, None]},
        {"a": 1},
        ["x"],
    ],
    "commas": [{"commas": ["<img src=x>", {"a": 1}, None, True, 1.5]}, {"optional": [1.5]}],
    "morphosyntax": [{"answer": ["POPRAWNE"]}, {"corrected_sentence": {"x": 1}}],
}
INCOMPLETE_DRAFTS = {
    "discourse": {"discourse_units": [{"du_id": "1", "head": None}]},
    "commas": {"commas": [1]},
    "morphosyntax": {"answer": "NIEPOPRAWNE"},
}


@pytest.mark.parametrize("subtask", sorted(WRONG_DRAFTS))
def test_a_draft_of_the_wrong_type_anywhere_is_refused_on_the_page_and_in_the_api(subtask):
    queue = make_queue(subtask)
    for draft in WRONG_DRAFTS[subtask]:
        response = htmx_post(queue.client, queue.page, {"intent": "draft", "answer": json.dumps(draft), "version": "0"})
        assert response.status_code == 422, draft
        body = {"item": queue.item.pk, "answer": draft, "status": "draft", "version": 0}
        response = queue.client.post("/api/annotations/", body, content_type="application/json")
        assert response.status_code in (400, 422), draft
        assert response.json()["problems"]
    assert not Annotation.objects.exists()


@pytest.mark.parametrize("subtask", sorted(INCOMPLETE_DRAFTS))
def test_an_incomplete_draft_of_the_right_types_is_stored(subtask):
    queue = make_queue(subtask)
    draft = INCOMPLETE_DRAFTS[subtask]
    response = htmx_post(queue.client, queue.page, {"intent": "draft", "answer": json.dumps(draft), "version": "0"})
    assert response.status_code == 200
    assert Annotation.objects.get().answer == draft
