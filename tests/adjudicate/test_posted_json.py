"""An edited decision nested too deeply for Python to read is refused as too deep, as an
annotator's answer is (one reading of posted JSON: annotation.core.http.posted_json)."""

import pytest

from annotation.models import Adjudication
from tests.adjudicate.conftest import wsd_answered

pytestmark = pytest.mark.django_db


def test_an_edited_decision_nested_too_deeply_is_refused_and_stores_nothing(client, adjudicator):
    answered = wsd_answered([["A", "B"]])
    (item,) = answered.items
    client.force_login(adjudicator)
    assert client.post(answered.url(item), {"intent": "claim"}).status_code == 204
    response = client.post(
        answered.url(item), {"intent": "decide", "source": "edited", "answer": "[" * 100_000, "version": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 422
    assert "nested too deeply" in response.content.decode()
    assert not Adjudication.objects.exists()
