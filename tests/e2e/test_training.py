"""A training round in the browser, by keyboard alone: answer, read the feedback (the gold
beside the answer, the explanation), go on, and reach the dataset's items once passed; every
widget's partials answer on a training item as on the item page."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from annotation.datasets.assigning import assign
from annotation.models import TrainingRound
from tests.training.conftest import EXPLANATION_MARK, annotator, dataset, training_pool  # noqa: F401 (fixtures)
from tests.training.test_widget_partials import PARTIAL_REQUESTS, training_item_of
from tests.widgets.test_morphosyntax import CORRECTED

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_training_round_by_keyboard_alone(page: Page, login, live_server, dataset, training_pool, annotator):
    dataset.threshold = 0.6
    dataset.save()
    assign(dataset, [annotator], 1)
    login(page, annotator)
    page.goto(live_server.url + reverse("annotate_continue", args=[dataset.pk]))
    expect(page).to_have_url(re.compile(r"/training/1/$"))
    page.wait_for_function("() => window.Polis !== undefined")
    expect(page.locator("#training-feedback")).to_have_count(0)
    expect(page.locator("body")).not_to_contain_text(EXPLANATION_MARK)

    for number, letter in enumerate("BCB", 1):
        expect(page).to_have_url(re.compile(rf"/training/{number}/$"))
        page.wait_for_function("() => window.Polis !== undefined")
        expect(page.locator(".wsd-card").first).to_be_focused()
        page.keyboard.press(letter.lower())
        page.keyboard.press("Enter")
        # The same page now shows the gold answer beside the annotator's.
        expect(page.locator("#training-feedback")).to_be_visible()
        # Each letter with the sentence it stands for.
        expect(page.locator("#training-yours")).to_have_text(re.compile(rf"^{letter} \S"))
        expect(page.locator("#training-gold")).to_have_text(re.compile(r"^B \S"))
        if number == 1:
            expect(page.locator("#training-explanation")).to_contain_text(EXPLANATION_MARK)
        expect(page.locator("#training-next")).to_be_focused()
        page.keyboard.press("Enter")

    expect(page.locator("#training-outcome")).to_contain_text("0.67")
    assert TrainingRound.objects.get().score == pytest.approx(2 / 3)
    expect(page.locator("#training-continue")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/annotate/{dataset.pk}/\d+/$"))
    page.wait_for_function("() => window.Polis !== undefined")
    expect(page.locator(".wsd-card").first).to_be_visible()


def type_a_correction(page: Page) -> None:
    page.keyboard.press("n")
    page.keyboard.press("i")
    page.keyboard.press("Control+a")
    page.keyboard.type(CORRECTED)
    expect(page.locator("#morph-diff .diff-text del")).to_have_text(["chaotycznemu", "może"])


def type_a_misspelt_numeral(page: Page) -> None:
    page.keyboard.type("dwudziesu")
    expect(page.locator(".numeral-word.not-numeral")).to_have_text("dwudziesu")


def make_unit_one_the_root(page: Page) -> None:
    page.keyboard.press("r")
    expect(page.locator(".du-row.is-root")).to_have_count(1)  # drawn by the tree partial


# Per subtask with partials: keys that make the widget ask for a partial, and what it then shows.
USES_A_PARTIAL = {
    "morphosyntax": type_a_correction,
    "numerals": type_a_misspelt_numeral,
    "discourse": make_unit_one_the_root,
}


@pytest.mark.parametrize("subtask", PARTIAL_REQUESTS)
def test_a_widget_uses_its_partials_on_a_training_item(page: Page, login, live_server, subtask):
    record, _requests = PARTIAL_REQUESTS[subtask]
    _dataset, annotator, url = training_item_of(subtask, record)
    partial_replies = []
    page.on("response", lambda response: "partial=" in response.url and partial_replies.append(response.status))
    login(page, annotator)
    page.goto(live_server.url + url)
    page.wait_for_function("() => window.Polis !== undefined")
    USES_A_PARTIAL[subtask](page)
    assert partial_replies and set(partial_replies) == {200}


def test_the_key_overlay_of_a_training_item_lists_only_the_keys_that_work_there(
    page: Page, login, live_server, dataset, training_pool, annotator
):
    assign(dataset, [annotator], 1)
    login(page, annotator)
    url = live_server.url + reverse("training_item", args=[dataset.pk, 1])
    page.goto(url)
    page.wait_for_function("() => window.Polis !== undefined")
    page.keyboard.press("?")
    keys = page.locator("#keys-list")
    expect(page.locator("#keys-help")).to_be_visible()
    for listed in ("Answer and see the gold answer", "Show or hide the guideline", "Show the keys"):
        expect(keys).to_contain_text(listed)
    for absent in ("Previous item", "Skip", "Flag a problem", "Save and open the next item"):
        expect(keys).not_to_contain_text(absent)
    page.keyboard.press("Escape")
    expect(page.locator("#keys-help")).to_be_hidden()
    # The keys the overlay leaves out do nothing here.
    page.keyboard.press("Shift+S")
    page.keyboard.press("Shift+F")
    page.keyboard.press("Shift+P")
    expect(page.locator("dialog[open]")).to_have_count(0)
    expect(page).to_have_url(url)
