"""The numerals widget in the browser: typing, the form check, refusals."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.widgets.item_pages import assigned_items
from tests.widgets.test_numerals import RECORD

SECOND = {**RECORD, "id": "n2"}


def test_keyboard_alone_types_checks_and_saves(page: Page, live_server, login):
    first, second = assigned_items("numerals", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
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

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    stored = first.stored()
    assert (stored.answer, stored.status) == ({"answer": "dwudziestu"}, Annotation.Status.SUBMITTED)


def test_digits_are_refused_in_the_page(page: Page, live_server, login):
    (item,) = assigned_items("numerals", [RECORD])
    login(page, item.annotator)
    page.goto(live_server.url + item.url)

    page.keyboard.type("20")
    expect(page.locator("#numeral-check .widget-refusals")).to_be_visible()
    page.keyboard.press("Enter")

    expect(page.locator("#answer-problems")).to_contain_text("digits")
    expect(page).to_have_url(re.compile(re.escape(item.url) + "$"))
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()


def test_an_unknown_word_warns_on_the_first_enter_and_saves_on_the_second(page: Page, live_server, login):
    first, second = assigned_items("numerals", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)

    page.keyboard.type("czterysta trzydzieści prc")
    page.keyboard.press("Enter")  # at once, before the underline could show
    expect(page.locator("#answer-problems")).to_contain_text("„prc”")
    expect(page.locator("#confirm-save")).to_be_visible()
    expect(page).to_have_url(re.compile(re.escape(first.url) + "$"))
    assert first.stored() is None or first.stored().status == Annotation.Status.DRAFT
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    stored = first.stored()
    assert (stored.answer, stored.status, stored.metadata) == (
        {"answer": "czterysta trzydzieści prc"}, Annotation.Status.SUBMITTED, {"confirmed_unknown_words": ["prc"]},
    )


def test_a_changed_answer_is_checked_afresh_and_the_button_confirms(page: Page, live_server, login):
    first, second = assigned_items("numerals", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
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

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    assert first.stored().metadata == {"confirmed_unknown_words": ["dwudziesu"]}


def test_mouse_and_typing_save(page: Page, live_server, login):
    first, second = assigned_items("numerals", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)

    page.locator("#numeral-answer").click()
    page.locator("#numeral-answer").fill("dwudziestu")
    page.locator("#action-save").click()

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    assert first.stored().answer == {"answer": "dwudziestu"}
