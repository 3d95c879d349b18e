"""The word-sense widget in the browser: by keyboard alone (the mouse: test_widgets_choice_cards.py)."""

from playwright.sync_api import Page, expect

from tests.e2e.outcomes import expect_submitted_and_next
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

    expect_submitted_and_next(page, first, second, {"answer": "C"})


def test_keys_are_listed_in_the_overlay(page: Page, open_items):
    (item,) = open_items("wsd", [RECORD])
    page.keyboard.press("?")
    keys = page.locator("#keys-list")
    expect(keys).to_be_visible()
    for letter in "ABCD":
        expect(keys).to_contain_text(f"Choose {letter}")
