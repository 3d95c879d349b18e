"""Keys every item page has: the help overlay from inside a text field, the way back to
the answer field, and the flag dialog's keys."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Flag
from tests.item_pages import assigned_items
from tests.widgets.test_numerals import RECORD


def test_help_opens_from_inside_the_answer_field_and_gives_the_focus_back(page: Page, live_server, login):
    (item,) = assigned_items("numerals", [RECORD])
    login(page, item.annotator)
    page.goto(live_server.url + item.url)
    field, help_dialog = page.locator("#numeral-answer"), page.locator("#keys-help")
    expect(field).to_be_focused()
    expect(page.locator("#action-keys")).to_contain_text("F1")
    expect(page.locator(".numerals-widget .widget-hint")).to_contain_text("F1")

    for keys in ("F1", "Control+Slash"):
        page.keyboard.type("dwa")
        page.keyboard.press(keys)
        expect(help_dialog).to_be_visible()
        expect(page.locator("#keys-list")).to_contain_text("Show the keys, also while typing")
        # Named as the key a person presses, not by its code.
        expect(page.locator("#keys-list")).to_contain_text("Ctrl+/")
        expect(page.locator("#keys-list")).not_to_contain_text("Slash")
        page.keyboard.press("Escape")
        expect(help_dialog).to_be_hidden()
        expect(field).to_be_focused()
        expect(field).to_have_value("dwa")  # no "?" or "/" typed into the answer
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")

    # Esc leaves the field; I (outside any field) brings the focus back to it.
    page.keyboard.type("dwadzieścia")
    page.keyboard.press("Escape")
    expect(field).not_to_be_focused()
    page.keyboard.press("i")
    expect(field).to_be_focused()
    expect(field).to_have_value("dwadzieścia")
    expect(page.locator("#keys-list")).to_contain_text("Go to the answer field")


def test_flag_dialog_enter_adds_a_line_ctrl_enter_sends_escape_closes(page: Page, live_server, login):
    first, second = assigned_items("numerals", [RECORD, {**RECORD, "id": "n2"}])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
    dialog, comment = page.locator("#flag-dialog"), page.locator("#flag-comment")
    page.keyboard.press("Escape")

    page.keyboard.press("Shift+F")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Ctrl+Enter sends the flag")
    comment.focus()
    page.keyboard.type("pierwsza")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(comment).not_to_be_focused()  # the next key acts on the page
    assert not Flag.objects.exists()

    page.keyboard.press("Shift+F")
    expect(dialog).to_be_visible()
    comment.focus()
    expect(comment).to_be_focused()
    page.keyboard.press("Control+a")
    page.keyboard.type("Dwie liczby")
    page.keyboard.press("Enter")  # a new line, not a send
    page.keyboard.type("w jednym zdaniu")
    expect(dialog).to_be_visible()
    page.keyboard.press("Control+Enter")

    expect(dialog).to_be_hidden()
    expect(page).to_have_url(re.compile(re.escape(first.url) + "$"))
    flag = Flag.objects.get()
    assert flag.comment.replace("\r\n", "\n") == "Dwie liczby\nw jednym zdaniu"
