"""Hostile item text in the browser: shown as text by every widget, never run as markup."""

import pytest
from playwright.sync_api import Page, expect

ATTACK = "<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\"> & \"q\" 'a'"

RECORDS = {
    "wsd": {
        "id": "x",
        "reference_sentence": f"{ATTACK} [[TARGET]]zamek{ATTACK}[[/TARGET]]",
        "candidates": {letter: f"{ATTACK} [[TARGET]]zamek[[/TARGET]]" for letter in "ABCD"},
    },
    "coreference": {
        "id": "x",
        "context": f"{ATTACK} [A]a{ATTACK}[/A] [B]b[/B] [C]c[/C] [D]d[/D] [T]{ATTACK}[/T]",
        "candidates": {"A": f"a{ATTACK}", "B": "b", "C": "c", "D": ATTACK},
    },
    "morphosyntax": {"id": "x", "sentence": ATTACK},
    "numerals": {"id": "x", "sentence": f"{ATTACK} [[20]] {ATTACK}"},
}


@pytest.mark.parametrize("subtask", list(RECORDS))
def test_hostile_item_text_is_shown_as_text(page: Page, open_items, subtask):
    (item,) = open_items(subtask, [RECORDS[subtask]])
    widget = page.locator(".item-widget")

    expect(widget).to_contain_text('<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & "q" \'a\'')
    expect(widget.locator("script, img")).to_have_count(0)
    assert page.evaluate("window.pwned") is None


def test_hostile_typing_in_the_numeral_check_and_the_diff_is_text(page: Page, open_items):
    open_items("numerals", [RECORDS["numerals"]])
    page.keyboard.type(ATTACK)
    expect(page.locator(".numeral-word.not-numeral").first).to_have_text("<script>window.pwned=1</script><img")
    expect(page.locator("#numeral-check script, #numeral-check img")).to_have_count(0)

    page.context.clear_cookies()
    open_items("morphosyntax", [{"id": "y", "sentence": "Ala ma kota."}])
    page.keyboard.press("n")
    page.keyboard.press("i")  # into the editor, at its end
    page.keyboard.press("End")
    page.keyboard.type(ATTACK)
    expect(page.locator("#morph-diff .diff-text")).to_contain_text("<script>window.pwned=1</script>")
    expect(page.locator("#morph-diff script, #morph-diff img")).to_have_count(0)
    assert page.evaluate("window.pwned") is None
