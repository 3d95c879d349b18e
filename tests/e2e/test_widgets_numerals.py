"""The numerals widget in the browser: typing, the form check, refusals."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
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


def test_an_unknown_word_warns_on_the_first_enter_and_saves_on_the_second(page: Page, open_items):
    first, second = open_items("numerals", [RECORD, SECOND])

    page.keyboard.type("czterysta trzydzieści prc")
    page.keyboard.press("Enter")  # at once, before the underline could show
    expect(page.locator("#answer-problems")).to_contain_text("„prc”")
    expect(page.locator("#confirm-save")).to_be_visible()
    expect(page).to_have_url(re.compile(re.escape(first.url) + "$"))
    assert first.stored() is None or first.stored().status == Annotation.Status.DRAFT
    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, {"answer": "czterysta trzydzieści prc"})
    assert first.stored().metadata == {"confirmed_unknown_words": ["prc"]}


def test_a_changed_answer_is_checked_afresh_and_the_button_confirms(page: Page, open_items):
    first, second = open_items("numerals", [RECORD, SECOND])
    field = page.locator("#numeral-answer")

    page.keyboard.type("xxxx")
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-save")).to_be_visible()
    page.keyboard.press("Control+a")
    page.keyboard.type("dwudziesu")
    page.keyboard.press("Enter")  # another answer: asked again, not saved
    expect(page.locator("#answer-problems")).to_contain_text("„dwudziesu”")
    expect(page).to_have_url(re.compile(re.escape(first.url) + "$"))
    expect(field).to_have_value("dwudziesu")
    page.locator("#confirm-save").click()  # "zapisz mimo to"

    expect_submitted_and_next(page, first, second, {"answer": "dwudziesu"})
    assert first.stored().metadata == {"confirmed_unknown_words": ["dwudziesu"]}


def test_mouse_and_typing_save(page: Page, open_items):
    first, second = open_items("numerals", [RECORD, SECOND])

    page.locator("#numeral-answer").click()
    page.locator("#numeral-answer").fill("dwudziestu")
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"answer": "dwudziestu"})
