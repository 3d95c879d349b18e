"""The coreference widget in the browser: by keyboard alone and by mouse alone."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.widgets.item_pages import assigned_items
from tests.widgets.test_coreference import RECORD

SECOND = {**RECORD, "id": "c2"}


def test_keyboard_alone_chooses_and_saves(page: Page, live_server, login):
    first, second = assigned_items("coreference", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
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

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    stored = first.stored()
    assert (stored.answer, stored.status) == ({"answer": "A"}, Annotation.Status.SUBMITTED)


def test_mouse_alone_chooses_in_the_text_and_saves(page: Page, live_server, login):
    first, second = assigned_items("coreference", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)

    # Hovering a candidate in the list lights up its mention in the text.
    page.locator('.coref-candidate[data-choice="C"]').hover()
    expect(page.locator('.coref-context mark[data-choice="C"]')).to_have_class(re.compile(r"\bis-linked\b"))
    # A click on a mention in the text chooses it.
    page.locator('.coref-context mark[data-choice="D"]').click()
    expect(page.locator('.coref-candidate[data-choice="D"]')).to_have_attribute("aria-checked", "true")
    page.locator("#action-save").click()

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    assert first.stored().answer == {"answer": "D"}


def test_mouse_alone_chooses_in_the_list(page: Page, live_server, login):
    first, second = assigned_items("coreference", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)

    page.locator('.coref-candidate[data-choice="B"]').click()
    page.locator("#action-save").click()

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    assert first.stored().answer == {"answer": "B"}


def test_saving_without_a_choice_is_refused_in_the_page(page: Page, live_server, login):
    (item,) = assigned_items("coreference", [RECORD])
    login(page, item.annotator)
    page.goto(live_server.url + item.url)
    page.evaluate("document.activeElement.blur()")  # Enter on a focused card would choose it

    page.keyboard.press("Enter")

    expect(page.locator("#answer-problems li")).not_to_have_count(0)
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()
