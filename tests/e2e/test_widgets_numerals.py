"""The numerals widget in the browser: typing, the form check, refusals."""

from playwright.sync_api import Page, expect

from tests.e2e.outcomes import expect_nothing_submitted, expect_submitted_and_next
from tests.widgets.test_numerals import RECORD

SECOND = {**RECORD, "id": "n2"}


def test_keyboard_alone_types_checks_and_saves(page: Page, open_items):
    first, second = open_items("numerals", [RECORD, SECOND])
    field = page.locator("#numeral-answer")
    expect(field).to_be_focused()
    expect(page.locator(".numerals-widget mark.target")).to_have_text("20")

    page.keyboard.type("dwudziesu")
    expect(page.locator(".numeral-word.not-numeral")).to_have_text("dwudziesu")
    page.keyboard.press("ArrowLeft")
    page.keyboard.type("t")
    expect(field).to_have_value("dwudziestu")
    expect(page.locator(".numeral-word")).to_have_text(["dwudziestu"])
    expect(page.locator(".numeral-word.not-numeral")).to_have_count(0)
    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, {"answer": "dwudziestu"})


def test_digits_are_refused_in_the_page(page: Page, open_items):
    (item,) = open_items("numerals", [RECORD])

    page.keyboard.type("20")
    expect(page.locator("#numeral-check .widget-refusals")).to_be_visible()
    page.keyboard.press("Enter")

    expect(page.locator("#answer-problems")).to_contain_text("digits")
    expect_nothing_submitted(page, item)


def test_a_form_warning_never_blocks_saving(page: Page, open_items):
    first, second = open_items("numerals", [RECORD, SECOND])

    page.locator("#numeral-answer").fill("dwudziesu")
    expect(page.locator(".numeral-word.not-numeral")).to_have_text("dwudziesu")
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"answer": "dwudziesu"})


def test_mouse_and_typing_save(page: Page, open_items):
    first, second = open_items("numerals", [RECORD, SECOND])

    page.locator("#numeral-answer").click()
    page.locator("#numeral-answer").fill("dwudziestu")
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"answer": "dwudziestu"})
