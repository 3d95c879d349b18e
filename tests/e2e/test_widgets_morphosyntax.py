"""The morphosyntax widget in the browser: verdict keys, the correction editor, its diff."""

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.e2e.outcomes import expect_submitted_and_next
from tests.widgets.test_morphosyntax import CORRECTED, RECORD, SENTENCE

SECOND = {**RECORD, "id": "m2"}


def test_keyboard_alone_corrects_and_saves(page: Page, open_items):
    first, second = open_items("morphosyntax", [RECORD, SECOND])
    editor = page.locator("#morph-correction")
    expect(page.locator('.morph-verdicts [data-choice="POPRAWNE"]')).to_be_focused()
    expect(editor).to_be_hidden()
    for label in ("POPRAWNE: the sentence is correct", "NIEPOPRAWNE: correct the sentence", "Restore the original"):
        expect(page.locator("#key-legend")).to_contain_text(label)

    page.keyboard.press("n")
    # The editor opens with the sentence and the cursor in it, at the end.
    expect(editor).to_be_focused()
    expect(editor).to_have_value(SENTENCE)
    assert editor.evaluate("e => e.selectionStart") == len(SENTENCE)
    # Keys are text inside the editor: "p" is typed, not POPRAWNE.
    page.keyboard.press("Control+a")
    page.keyboard.type(CORRECTED)
    expect(page.locator('.morph-verdicts [data-choice="NIEPOPRAWNE"]')).to_have_attribute("aria-checked", "true")
    expect(page.locator("#morph-diff .diff-text del")).to_have_text(["chaotycznemu", "może"])
    expect(page.locator("#morph-diff .diff-text ins")).to_have_text(["chaotycznym", "mogą"])
    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, {"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTED})


def test_escape_leaves_the_editor_and_restore_brings_the_sentence_back(page: Page, open_items):
    first, second = open_items("morphosyntax", [RECORD, SECOND])
    editor = page.locator("#morph-correction")

    page.keyboard.press("n")
    page.keyboard.type(" Dopisek")
    expect(page.locator("#morph-diff .diff-text ins")).to_have_text(["Dopisek"])
    page.keyboard.press("Escape")
    expect(editor).not_to_be_focused()
    page.keyboard.press("r")  # restore the original sentence
    expect(editor).to_have_value(SENTENCE)
    expect(editor).to_be_focused()
    expect(page.locator("#morph-diff .diff-none")).to_be_visible()
    # Saving the unchanged sentence as a correction is refused, in the page.
    page.keyboard.press("Enter")
    expect(page.locator("#answer-problems")).to_contain_text("same as the original")
    assert first.stored() is None or first.stored().status == Annotation.Status.DRAFT
    # Esc, then P: POPRAWNE, the editor closes, the answer has an empty correction.
    page.keyboard.press("Escape")
    page.keyboard.press("p")
    expect(editor).to_be_hidden()
    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, {"answer": "POPRAWNE", "corrected_sentence": ""})


def test_mouse_alone_saves_correct(page: Page, open_items):
    first, second = open_items("morphosyntax", [RECORD, SECOND])

    page.locator('.morph-verdicts [data-choice="NIEPOPRAWNE"]').click()
    expect(page.locator("#morph-correction")).to_be_visible()
    page.locator('.morph-verdicts [data-choice="POPRAWNE"]').click()
    expect(page.locator("#morph-correction")).to_be_hidden()
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"answer": "POPRAWNE", "corrected_sentence": ""})


def test_mouse_corrects_with_the_restore_button(page: Page, open_items):
    first, second = open_items("morphosyntax", [RECORD, SECOND])
    editor = page.locator("#morph-correction")

    page.locator('.morph-verdicts [data-choice="NIEPOPRAWNE"]').click()
    editor.fill("Coś zupełnie innego.")
    page.locator(".morph-restore").click()
    expect(editor).to_have_value(SENTENCE)
    editor.fill(CORRECTED)
    expect(page.locator("#morph-diff .diff-text ins")).to_have_count(2)
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, {"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTED})
