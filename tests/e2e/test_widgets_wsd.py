"""The word-sense widget in the browser: by keyboard alone and by mouse alone."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.widgets.item_pages import assigned_items
from tests.widgets.test_wsd import RECORD

SECOND = {**RECORD, "id": "w2"}


def test_keyboard_alone_chooses_and_saves(page: Page, live_server, login):
    first, second = assigned_items("wsd", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
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


def test_mouse_alone_chooses_and_saves(page: Page, live_server, login):
    first, second = assigned_items("wsd", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)

    page.locator('.wsd-card[data-choice="D"]').click()
    page.locator("#action-save").click()

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    assert first.stored().answer == {"answer": "D"}
    assert first.stored().status == Annotation.Status.SUBMITTED


def test_saving_without_a_choice_is_refused_in_the_page(page: Page, live_server, login):
    (item,) = assigned_items("wsd", [RECORD])
    login(page, item.annotator)
    page.goto(live_server.url + item.url)
    page.evaluate("document.activeElement.blur()")  # Enter on a focused card would choose it

    page.keyboard.press("Enter")

    expect(page.locator("#answer-problems li")).not_to_have_count(0)
    expect(page).to_have_url(re.compile(re.escape(item.url) + "$"))
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()


def test_enter_on_a_focused_card_chooses_it_and_the_next_enter_saves(page: Page, live_server, login):
    first, second = assigned_items("wsd", [RECORD, SECOND])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
    card_a, card_b = page.locator('.wsd-card[data-choice="A"]'), page.locator('.wsd-card[data-choice="B"]')
    expect(card_a).to_be_focused()
    # Focused is not chosen, and does not look chosen: no thick frame, no tint, no tick.
    expect(card_a).to_have_attribute("aria-checked", "false")
    expect(card_a).to_have_css("border-top-width", "2px")
    expect(card_a).to_have_css("background-color", "rgb(255, 255, 255)")
    assert "✓" not in card_a.evaluate("e => getComputedStyle(e, '::after').content")

    page.keyboard.press("Enter")
    expect(card_a).to_have_attribute("aria-checked", "true")
    expect(card_a).to_have_css("border-top-width", "3px")
    assert "✓" in card_a.evaluate("e => getComputedStyle(e, '::after').content")
    expect(page).to_have_url(re.compile(re.escape(first.url) + "$"))
    page.keyboard.press("ArrowDown")  # arrows move the choice with the focus, as in any radio group
    expect(card_b).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
    assert first.stored().answer == {"answer": "B"}


def test_keys_are_listed_in_the_overlay(page: Page, live_server, login):
    (item,) = assigned_items("wsd", [RECORD])
    login(page, item.annotator)
    page.goto(live_server.url + item.url)
    page.keyboard.press("?")
    keys = page.locator("#keys-list")
    expect(keys).to_be_visible()
    for letter in "ABCD":
        expect(keys).to_contain_text(f"Choose {letter}")
