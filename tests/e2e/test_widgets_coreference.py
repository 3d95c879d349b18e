"""The coreference widget in the browser: by keyboard alone and by mouse alone."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.outcomes import expect_submitted_and_next
from tests.widgets.test_coreference import RECORD

SECOND = {**RECORD, "id": "c2"}


def test_keyboard_alone_chooses_and_saves(page: Page, open_items):
    first, second = open_items("coreference", [RECORD, SECOND])
    expect(page.locator(".coref-candidate").first).to_be_focused()

    page.keyboard.press("Digit2")
    expect(page.locator('.coref-candidate[data-choice="B"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.press("a")
    expect(page.locator('.coref-candidate[data-choice="A"]')).to_have_attribute("aria-checked", "true")
    # The chosen candidate is also marked in the text, and focus lights up its mention.
    expect(page.locator('.coref-context mark[data-choice="A"]')).to_have_class(re.compile(r"\bis-chosen\b"))
    expect(page.locator('.coref-context mark[data-choice="A"]')).to_have_class(re.compile(r"\bis-linked\b"))
    expect(page.locator(".coref-context mark.is-chosen")).to_have_count(1)
    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, {"answer": "A"})


def test_mouse_alone_chooses_in_the_text_and_saves(page: Page, open_items):
    first, second = open_items("coreference", [RECORD, SECOND])

    # Hovering a candidate in the list lights up its mention in the text.
    page.locator('.coref-candidate[data-choice="C"]').hover()
    expect(page.locator('.coref-context mark[data-choice="C"]')).to_have_class(re.compile(r"\bis-linked\b"))
    # A click on a mention in the text chooses it.
    page.locator('.coref-context mark[data-choice="D"]').click()
    expect(page.locator('.coref-candidate[data-choice="D"]')).to_have_attribute("aria-checked", "true")
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"answer": "D"})
