"""The comma-marker widget in the browser: by keyboard alone and by mouse alone."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.e2e.outcomes import expect_submitted_and_next
from tests.widgets.test_commas import RECORD

SECOND = {**RECORD, "id": "c-second"}
TEN = {"id": "c-ten", "sentence_with_positions": " ".join(f"słowo{k} [{k}]" for k in range(1, 11)) + " koniec."}


def preview(page: Page) -> str:
    return page.locator("#commas-preview").inner_text()


def test_keyboard_alone_marks_required_and_optional_commas_and_saves(page: Page, open_items):
    first, second = open_items("commas", [RECORD, SECOND])

    page.keyboard.press("Digit2")  # none → required
    page.keyboard.press("Digit5")
    page.keyboard.press("Digit5")  # required → optional
    page.keyboard.press("Shift+Digit7")  # optional at once
    page.keyboard.press("Digit4")
    page.keyboard.press("Digit4")
    page.keyboard.press("Digit4")  # required → optional → none again
    expect(page.locator('.comma-slot[data-marker="2"]')).to_have_attribute("data-state", "required")
    expect(page.locator('.comma-slot[data-marker="5"]')).to_have_attribute("data-state", "optional")
    expect(page.locator('.comma-slot[data-marker="4"]')).to_have_attribute("data-state", "none")
    # The preview reads as the sentence with its commas placed, the optional ones drawn apart.
    assert "Na plaży, kobieta stawia małe, dziecko na, deskorolce." in preview(page)
    optional = page.locator('.comma-mark[data-state="optional"]')
    expect(optional).to_have_count(2)
    expect(optional.first).to_have_css("text-decoration-style", "dotted")
    expect(page.locator('.comma-mark[data-state="required"]')).not_to_have_css("text-decoration-style", "dotted")

    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, {"commas": [2], "optional": [5, 7]})


def test_one_key_saves_no_comma_anywhere(page: Page, open_items):
    first, second = open_items("commas", [RECORD, SECOND])
    page.keyboard.press("Digit3")  # a change of mind: N clears it

    page.keyboard.press("n")

    expect_submitted_and_next(page, first, second, {"commas": [], "optional": []})


def test_zero_is_the_tenth_position(page: Page, open_items):
    (item,) = open_items("commas", [TEN])

    page.keyboard.press("Digit0")
    page.keyboard.press("Digit1")
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(r"/done/$"))
    assert item.stored().answer == {"commas": [1, 10], "optional": []}


FIFTEEN = {"id": "c-15", "sentence_with_positions": " ".join(f"słowo{k} [{k}]" for k in range(1, 16)) + " koniec."}


def test_above_ten_positions_every_position_has_two_digits(page: Page, open_items):
    (item,) = open_items("commas", [FIFTEEN])
    expect(page.locator(".widget-help")).to_contain_text("two digits")
    expect(page.locator('.comma-slot[data-marker="5"]')).to_have_attribute("title", re.compile("05"))

    page.keyboard.press("Digit1")
    page.keyboard.press("Digit2")  # 12
    page.keyboard.press("Digit0")
    page.keyboard.press("Digit5")  # 5, with a leading zero
    page.keyboard.press("Shift+Digit1")
    page.keyboard.press("Shift+Digit4")  # 14, optional
    page.keyboard.press("Digit7")  # no number above 15 starts with 7: 7 at once
    page.keyboard.press("Digit1")  # alone, after a pause: 1
    expect(page.locator('.comma-slot[data-marker="1"]')).to_have_attribute("data-state", "required")
    page.keyboard.press("Digit1")
    page.keyboard.press("Digit0")  # 10
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(r"/done/$"))
    assert item.stored().answer == {"commas": [1, 5, 7, 10, 12], "optional": [14]}


def test_mouse_alone_cycles_positions_and_saves(page: Page, open_items):
    first, second = open_items("commas", [RECORD, SECOND])

    slot = page.locator('.comma-slot[data-marker="6"]')
    slot.click()
    expect(slot).to_have_attribute("data-state", "required")
    slot.click()
    expect(slot).to_have_attribute("data-state", "optional")
    slot.click()
    expect(slot).to_have_attribute("data-state", "none")
    page.locator('.comma-slot[data-marker="1"]').click()
    page.locator('.comma-slot[data-marker="3"]').click()
    page.locator('.comma-slot[data-marker="3"]').click()
    assert "Na, plaży kobieta, stawia małe dziecko" in preview(page)
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"commas": [1], "optional": [3]})


def test_a_draft_comes_back_after_a_reload(page: Page, open_items):
    (item,) = open_items("commas", [RECORD])
    page.keyboard.press("Digit8")
    expect(page.locator("#save-status > [data-kind=ok]")).to_have_count(1)  # the autosave arrived

    page.reload()

    expect(page.locator('.comma-slot[data-marker="8"]')).to_have_attribute("data-state", "required")
    assert item.stored().answer == {"commas": [8], "optional": []}
    assert item.stored().status == Annotation.Status.DRAFT
