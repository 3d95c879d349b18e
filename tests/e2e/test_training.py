"""A training round in the browser, by keyboard alone: answer, read the feedback (the gold
beside the answer, the explanation), go on, and reach the dataset's items once passed."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from annotation.models import TrainingRound
from annotation.services.assigning import assign
from tests.training.conftest import EXPLANATION_MARK, annotator, dataset, training_pool  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_training_round_by_keyboard_alone(page: Page, login, live_server, dataset, training_pool, annotator):
    dataset.threshold = 0.6
    dataset.save()
    assign(dataset, [annotator], 1)
    login(page, annotator)
    page.goto(live_server.url + reverse("annotate_continue", args=[dataset.pk]))
    expect(page).to_have_url(re.compile(r"/training/1/$"))
    page.wait_for_function("window.Polis !== undefined")
    expect(page.locator("#training-feedback")).to_have_count(0)
    expect(page.locator("body")).not_to_contain_text(EXPLANATION_MARK)

    for number, letter in enumerate("BCB", 1):
        expect(page).to_have_url(re.compile(rf"/training/{number}/$"))
        page.wait_for_function("window.Polis !== undefined")
        expect(page.locator(".wsd-card").first).to_be_focused()
        page.keyboard.press(letter.lower())
        page.keyboard.press("Enter")
        # The same page now shows the gold answer beside the annotator's.
        expect(page.locator("#training-feedback")).to_be_visible()
        expect(page.locator("#training-yours")).to_have_text(letter)
        expect(page.locator("#training-gold")).to_have_text("B")
        if number == 1:
            expect(page.locator("#training-explanation")).to_contain_text(EXPLANATION_MARK)
        expect(page.locator("#training-next")).to_be_focused()
        page.keyboard.press("Enter")

    expect(page.locator("#training-outcome")).to_contain_text("0.67")
    assert TrainingRound.objects.get().score == pytest.approx(2 / 3)
    expect(page.locator("#training-continue")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/annotate/{dataset.pk}/\d+/$"))
    page.wait_for_function("window.Polis !== undefined")
    expect(page.locator(".wsd-card").first).to_be_visible()
