"""The word-sense widget in the browser: by keyboard alone and by mouse alone."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.widgets.test_wsd import RECORD

SECOND = {**RECORD, "id": "w2"}


def test_keyboard_alone_chooses_and_saves(page: Page, open_items):
    first, second = open_items("wsd", [RECORD, SECOND])
    # Focus starts on the cards: the first decision.
    expect(page.locator(".wsd-card").first).to_be_focused()

    page.keyboard.press("b")
    expect(page.locator('.wsd-card[data-choice="B"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Digit3")  # digits choose too
    expect(page.locator('.wsd-card[data-choice="C"]')).to_have_attribute("aria-checked", "true")
    expect(page.locator('.wsd-card[aria-checked="true"]')).to_have_count(1)
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    stored = first.stored()
    assert (stored.answer, stored.status) == ({"answer": "C"}, Annotation.Status.SUBMITTED)


def test_mouse_alone_chooses_and_saves(page: Page, open_items):
    first, second = open_items("wsd", [RECORD, SECOND])

    page.locator('.wsd-card[data-choice="D"]').click()
    page.locator("#action-save").click()

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    assert first.stored().answer == {"answer": "D"}
    assert first.stored().status == Annotation.Status.SUBMITTED


def test_saving_without_a_choice_is_refused_in_the_page(page: Page, open_items):
    (item,) = open_items("wsd", [RECORD])

    page.keyboard.press("Enter")

    expect(page.locator("#answer-problems li")).not_to_have_count(0)
    expect(page).to_have_url(re.compile(re.escape(item.url) + "$"))
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()


def test_keys_are_listed_in_the_overlay(page: Page, open_items):
    (item,) = open_items("wsd", [RECORD])
    page.keyboard.press("?")
    keys = page.locator("#keys-list")
    expect(keys).to_be_visible()
    for letter in "ABCD":
        expect(keys).to_contain_text(f"Choose {letter}")
