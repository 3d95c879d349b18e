"""Shared builders for the annotator tests: small wsd datasets assigned in input order."""

import pytest

from tests.factories import assign_in_order, make_dataset, make_user

GOLD_MARK = "ZŁOTY-KLUCZ-ODPOWIEDZI"


def wsd_records(count: int) -> list[dict]:
    return [
        {
            "id": f"wsd-{number}",
            "reference_sentence": f"Zdanie {number} z [[TARGET]]zamkiem[[/TARGET]].",
            "candidates": {letter: f"{letter}: [[TARGET]]zamek[[/TARGET]] nr {number}." for letter in "ABCD"},
        }
        for number in range(1, count + 1)
    ]


def morphosyntax_records(count: int) -> list[dict]:
    return [{"id": f"m-{number}", "sentence": f"Kot {number} śpią na kanapie."} for number in range(1, count + 1)]


@pytest.fixture
def annotator():
    return make_user("annotator")


@pytest.fixture
def wsd_queue(annotator):
    """An annotator with a 5-item wsd dataset assigned in input order."""
    dataset = make_dataset("wsd", wsd_records(5))
    assign_in_order(dataset, annotator)
    return annotator, dataset


@pytest.fixture
def logged_in(client, wsd_queue):
    client.force_login(wsd_queue[0])
    return client
