"""What the two widgets of choice cards (wsd, coreference) do alike in the browser: a click on
a card and the save button answer; saving with no card chosen is refused in the page."""

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.outcomes import expect_nothing_submitted, expect_submitted_and_next
from tests.widgets import test_coreference, test_wsd

CARDS = {"wsd": (test_wsd.RECORD, ".wsd-card"), "coreference": (test_coreference.RECORD, ".coref-candidate")}


@pytest.mark.parametrize("subtask", list(CARDS))
def test_mouse_alone_chooses_a_card_and_saves(page: Page, open_items, subtask):
    record, card = CARDS[subtask]
    first, second = open_items(subtask, [record, {**record, "id": "second"}])

    page.locator(f'{card}[data-choice="D"]').click()
    expect(page.locator(f'{card}[data-choice="D"]')).to_have_attribute("aria-checked", "true")
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"answer": "D"})


@pytest.mark.parametrize("subtask", list(CARDS))
def test_saving_without_a_choice_is_refused_in_the_page(page: Page, open_items, subtask):
    record, _card = CARDS[subtask]
    (item,) = open_items(subtask, [record])
    page.evaluate("document.activeElement.blur()")  # Enter on a focused card would choose it

    page.keyboard.press("Enter")

    expect(page.locator("#answer-problems li")).not_to_have_count(0)
    expect_nothing_submitted(page, item)


@pytest.mark.parametrize("subtask", list(CARDS))
def test_enter_on_a_focused_card_chooses_it_and_the_next_enter_saves(page: Page, open_items, subtask):
    record, card = CARDS[subtask]
    first, second = open_items(subtask, [record, {**record, "id": "second"}])
    card_a, card_b = page.locator(f'{card}[data-choice="A"]'), page.locator(f'{card}[data-choice="B"]')
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
    expect_nothing_submitted(page, first)
    page.keyboard.press("ArrowDown")  # arrows move the choice with the focus, as in any radio group
    expect(card_b).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, {"answer": "B"})
