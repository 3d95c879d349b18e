"""The morphosyntax widget in the browser: verdict keys, the correction editor, its diff."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.e2e.outcomes import expect_submitted_and_next
from tests.item_pages import assigned_items
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
    # The editor opens with the sentence; the numbered words have the focus, I the editor.
    expect(editor).to_be_visible()
    expect(editor).to_have_value(SENTENCE)
    expect(page.locator(".morph-sentence")).to_be_focused()
    page.keyboard.press("i")
    expect(editor).to_be_focused()
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
    page.keyboard.press("i")
    page.keyboard.press("End")
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


# Sample items of demo/data/morphosyntax whose answer keys change one word (real gold).
ONE_WORD_FIXES = [
    ("Mamy świetnej ekipę i to jest szansa, żeby pójść do przodu.", 2, "świetną"),
    (
        "Zanim zostały ukształtowane Andy, zachodni krańcem Ameryki Południowej był już miejscem kilku orogenez.",
        6,
        "kraniec",
    ),
    (
        "Po odkryciu Ameryki przez Krzysztofa Kolumba w 1492 r. hiszpańskich określenie „Antillas” odnosiło się "
        "do lądu; wywodząca się z niego nazwa „Morze Antylskie” stała się zamiennym określeniem Morza "
        "Karaibskiego w różnych językach europejskich.",
        11,
        "hiszpańskie",
    ),
]
COUNT_KEYS = """
window.keyPresses = 0;
document.addEventListener("keydown", (event) => {
  // A chord (Ctrl+←) is one press: its modifier keys are not counted.
  if (!["Control", "Shift", "Alt", "Meta", "AltGraph"].includes(event.key)) window.keyPresses += 1;
}, true);
"""


def test_a_one_word_fix_takes_at_most_four_keys_besides_the_letters(page: Page, live_server, login):
    items = assigned_items("morphosyntax", [{"id": f"w{n}", "sentence": s} for n, (s, _, _) in enumerate(ONE_WORD_FIXES)])
    login(page, items[0].annotator)
    for item, (sentence, number, new_form) in zip(items, ONE_WORD_FIXES):
        page.goto(live_server.url + item.url)
        page.evaluate(COUNT_KEYS)
        wrong = page.locator(f'.morph-word[data-index="{number - 1}"]')
        expect(wrong.locator(".morph-word-number")).to_have_text(str(number))
        old_form = wrong.inner_text().removeprefix(str(number))

        if number < 10:
            page.keyboard.press("n")  # else the two digits alone choose NIEPOPRAWNE
        for digit in str(number):
            page.keyboard.press(f"Digit{digit}")
        word = page.locator(".morph-word-input")
        expect(word).to_be_focused()
        expect(word).to_have_value(old_form)
        assert word.evaluate("e => e.value.slice(e.selectionStart, e.selectionEnd)") == old_form
        keys = page.evaluate("window.keyPresses")
        page.keyboard.type(new_form)  # the letters are not counted
        typed = page.evaluate("window.keyPresses")
        page.keyboard.press("Enter")  # puts the word back
        expect(page.locator("#morph-diff .diff-text ins")).to_have_text([new_form])
        expect(page.locator(".morph-sentence")).to_be_focused()
        keys += page.evaluate("window.keyPresses") - typed + 1  # and the Enter that saves:
        page.keyboard.press("Enter")

        expect(page).not_to_have_url(re.compile(re.escape(item.url) + "$"))
        assert item.stored().answer == {
            "answer": "NIEPOPRAWNE",
            "corrected_sentence": sentence.replace(old_form, new_form, 1),
        }
        # N and one digit, or two digits; Enter (puts the word back), Enter (saves).
        assert keys == 4, keys


def test_a_word_is_reached_by_arrows_clicked_emptied_or_left_as_it_was(page: Page, live_server, login):
    (item,) = assigned_items("morphosyntax", [RECORD])
    login(page, item.annotator)
    page.goto(live_server.url + item.url)
    sentence = page.locator(".morph-sentence")

    # A number typed before N chooses NIEPOPRAWNE too.
    page.keyboard.press("Digit4")
    word = page.locator(".morph-word-input")
    expect(word).to_have_value("chaotycznemu")
    expect(page.locator('.morph-verdicts [data-choice="NIEPOPRAWNE"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.type("xyz")
    page.keyboard.press("Escape")  # left as it was
    expect(sentence).to_be_focused()
    expect(page.locator("#morph-correction")).to_have_value(SENTENCE)

    page.keyboard.press("ArrowLeft")  # from the sentence, the first arrow goes to the last word used
    expect(page.locator('.morph-word[data-index="3"]')).to_be_focused()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator('.morph-word[data-index="1"]')).to_be_focused()
    page.keyboard.press("Enter")  # opens "jest"
    expect(word).to_have_value("jest")
    page.keyboard.press("Delete")
    page.keyboard.press("Enter")  # an emptied word goes, with its space
    expect(page.locator("#morph-correction")).to_have_value(SENTENCE.replace(" jest", "", 1))

    page.locator('.morph-word[data-index="6"]').click()  # "może" is now the 7th word
    expect(word).to_have_value("może")
    page.keyboard.type("mogą")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(r"/done/$"))
    assert item.stored().answer["corrected_sentence"] == SENTENCE.replace(" jest", "", 1).replace("może", "mogą")
