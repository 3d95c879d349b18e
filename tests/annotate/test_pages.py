"""The item page: widget partials, gold never shown, Polish, bounded queries."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.subtasks.widgets import widget_for
from tests.annotate.conftest import GOLD_MARK, morphosyntax_records, wsd_records
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import htmx_get, htmx_post, item_url

pytestmark = pytest.mark.django_db


def test_the_item_page_shows_item_guideline_and_actions(logged_in, wsd_queue):
    _, dataset = wsd_queue
    page = logged_in.get(item_url(dataset, 2)).content.decode()
    assert "Item 2 of 5 in your order" in page
    assert "0 of 5 submitted" in page
    assert 'id="guideline"' in page and "Porównuj znaczenie wyrazu w kontekście" in page
    for action in ("action-save", "action-previous", "action-skip", "action-flag", "action-keys"):
        assert f'id="{action}"' in page
    assert 'hx-sync="this:queue last"' in page
    assert "annotation/core.js" in page and widget_for("wsd").script in page


def test_partials_go_to_the_subtasks_widget(client):
    annotator = make_user("annotator")
    dataset = make_dataset("morphosyntax", morphosyntax_records(2))
    assign_in_order(dataset, annotator)
    client.force_login(annotator)
    name = next(iter(widget_for("morphosyntax").partials))
    url = item_url(dataset, 1) + f"?partial={name}"
    assert htmx_get(client, url).status_code != 404
    assert htmx_get(client, item_url(dataset, 1) + "?partial=no-such-partial").status_code == 404
    other = make_user("annotator")
    client.force_login(other)
    assert htmx_get(client, url).status_code == 404  # not their item


def annotator_responses(client, dataset) -> dict[str, str]:
    """Every page, partial and API answer an annotator can get about the dataset."""
    name = dataset.subtask
    urls = {
        "home": reverse("home"),
        "continue": reverse("annotate_continue", args=[dataset.pk]),
        "item": item_url(dataset, 1),
        "done": reverse("queue_done", args=[dataset.pk]),
        "my answers": reverse("my_answers"),
        "404": item_url(dataset, 99),
        "api datasets": reverse("api_datasets"),
        "api items": reverse("api_dataset_items", args=[dataset.pk]),
        "api annotations": reverse("api_annotations"),
    }
    for partial in widget_for(name).partials:
        urls[f"partial {partial}"] = item_url(dataset, 1) + f"?partial={partial}"
    bodies = {label: client.get(url, follow=True, HTTP_HX_REQUEST="true" if "partial" in label else "").content.decode() for label, url in urls.items()}
    saves = {
        "draft": {"intent": "draft", "answer": json.dumps({"answer": "NIEPOPRAWNE"}), "version": "0"},
        "refused": {"intent": "submit", "answer": json.dumps({"answer": "ŹLE"}), "version": "1"},
        "stale": {"intent": "submit", "answer": json.dumps({"answer": "POPRAWNE", "corrected_sentence": ""}), "version": "0"},
        "submit": {"intent": "submit", "answer": json.dumps({"answer": "POPRAWNE", "corrected_sentence": ""}), "version": "1"},
    }
    for label, data in saves.items():
        bodies[f"save {label}"] = htmx_post(client, item_url(dataset, 1), data).content.decode()
    bodies["item after save"] = client.get(item_url(dataset, 1)).content.decode()
    return bodies


def test_gold_never_reaches_an_annotator(client):
    annotator = make_user("annotator")
    records = morphosyntax_records(2)
    gold = [
        {"id": record["id"], "answer": "NIEPOPRAWNE", "corrected_sentence": f"{GOLD_MARK} {record['id']}"}
        for record in records
    ]
    dataset = make_dataset("morphosyntax", records, gold=gold)
    assign_in_order(dataset, annotator)
    client.force_login(annotator)
    bodies = annotator_responses(client, dataset)
    assert len(bodies) >= 12
    leaks = [label for label, body in bodies.items() if GOLD_MARK in body]
    assert leaks == []
    # The responses are about the dataset (so the check above looked at real content).
    assert records[0]["sentence"] in bodies["item"] and records[0]["sentence"] in bodies["api items"]


def test_polish_from_accept_language(logged_in, wsd_queue):
    _, dataset = wsd_queue
    polish = logged_in.get(item_url(dataset, 1), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert 'lang="pl"' in polish
    assert "Zapisz i dalej" in polish and "Save & next" not in polish
    assert "Pozycja 1 z 5 w Twojej kolejności" in polish
    english = logged_in.get(item_url(dataset, 1), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Save & next" in english
    # The texts the page's script shows are translated too.
    assert "Zapisywanie" in polish


def test_the_language_switcher_overrides_accept_language(logged_in, wsd_queue):
    _, dataset = wsd_queue
    logged_in.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = logged_in.get(item_url(dataset, 1), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Save & next" in page


def count_queries(client, method: str, url: str, data: dict | None = None) -> int:
    with CaptureQueriesContext(connection) as queries:
        if method == "get":
            response = client.get(url)
        else:
            response = htmx_post(client, url, data)
    assert response.status_code == 200, response.content[:500]
    return len(queries)


def queries_for(size: int) -> dict[str, int]:
    from django.test import Client

    annotator = make_user("annotator")
    dataset = make_dataset("wsd", wsd_records(size))
    assign_in_order(dataset, annotator)
    client = Client()
    client.force_login(annotator)
    client.get(item_url(dataset, 1))  # warm: session and caches
    middle = size // 2
    return {
        "item page": count_queries(client, "get", item_url(dataset, middle)),
        "draft": count_queries(client, "post", item_url(dataset, middle), {"intent": "draft", "answer": '{"answer": "B"}', "version": "0"}),
        "submit": count_queries(client, "post", item_url(dataset, middle), {"intent": "submit", "answer": '{"answer": "B"}', "version": "1"}),
        "resubmit": count_queries(client, "post", item_url(dataset, middle), {"intent": "submit", "answer": '{"answer": "B"}', "version": "2"}),
        "item page answered": count_queries(client, "get", item_url(dataset, middle)),
        "home": count_queries(client, "get", reverse("home")),
    }


def test_queries_do_not_grow_with_the_dataset():
    small, large = queries_for(10), queries_for(1000)
    assert small == large
    assert all(count <= 12 for count in small.values()), small
