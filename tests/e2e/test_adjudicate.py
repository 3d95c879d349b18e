"""The adjudication page in the browser, by keyboard alone: choosing mode (1..K, M, Enter)
and editing mode (E, the subtask's own widget and keys, Esc, Enter) for one subtask of each
family: choice (wsd), text (morphosyntax), commas, discourse; the claim the open page makes
(the GET writes none), which sends a second adjudicator on to the next case; and no horizontal
scroll at 360 px."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Adjudication, AdjudicationClaim
from annotation.subtasks.discourse.widget import units_in_text_order
from tests.adjudicate.conftest import answered_dataset, person, wsd_answered
from tests.widgets.test_commas import RECORD as COMMAS_RECORD
from tests.widgets.test_discourse import passage
from tests.widgets.test_morphosyntax import RECORD as MORPH_RECORD
from tests.widgets.test_morphosyntax import SENTENCE as MORPH_SENTENCE


def start(page: Page, live_server, login, answered):
    adjudicator = person("adjudicator")
    login(page, adjudicator)
    page.goto(f"{live_server.url}/adjudicate/")
    page.locator(f'tr[data-dataset="{answered.dataset.name}"] a').focus()
    page.keyboard.press("Enter")
    expect_item(page, answered, 0)
    return adjudicator


def expect_item(page: Page, answered, index: int) -> None:
    """The page of the index-th item, ready for keys (its script has focused an answer)."""
    expect(page).to_have_url(re.compile(re.escape(answered.url(answered.items[index])) + "$"))
    expect(page.locator(".answer-card[aria-checked=true], .answer-card:focus")).not_to_have_count(0)


def expect_editing(page: Page, number: int) -> None:
    expect(page).to_have_url(re.compile(rf"\?edit={number}$"))
    expect(page.locator("body[data-mode=editing]")).to_have_count(1)


def expect_done(page: Page, answered) -> None:
    expect(page).to_have_url(re.compile(f"/adjudicate/{answered.dataset.pk}/done/$"))


def decision(item) -> tuple[dict, str]:
    adjudication = Adjudication.objects.get(item=item)
    return adjudication.answer, adjudication.source


def test_wsd_choosing_mode_takes_an_answer_and_the_majority(page: Page, live_server, login):
    answered = wsd_answered([["A", "B", "A"], ["C", "D", "D"]])
    start(page, live_server, login, answered)
    expect(page.locator("#mode-badge")).to_have_text(re.compile("Choosing|Wybieranie"))
    page.keyboard.press("2")
    expect(page.locator('.answer-card[data-key="2"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Enter")
    expect_item(page, answered, 1)
    page.keyboard.press("m")
    expect(page.locator('.answer-card[data-key="M"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Enter")
    expect_done(page, answered)
    assert decision(answered.items[0]) == ({"answer": "B"}, "annotation")
    assert decision(answered.items[1]) == ({"answer": "D"}, "majority")


def test_the_open_page_claims_its_item_and_a_second_adjudicator_goes_on(page: Page, live_server, login, browser,
                                                                        record_foreign_requests):
    answered = wsd_answered([["A", "B"], ["C", "D"]])
    first, second = answered.items
    claim_url = live_server.url + answered.url(first)
    with page.expect_response(lambda response: response.request.method == "POST" and response.url == claim_url) as claimed:
        holder = start(page, live_server, login, answered)
    assert claimed.value.status == 204
    assert AdjudicationClaim.objects.get(item=first).adjudicator == holder

    context = browser.new_context()
    foreign = record_foreign_requests(context)
    try:
        other = context.new_page()
        login(other, person("adjudicator"))
        other.goto(live_server.url + answered.url(first))
        expect_item(other, answered, 1)
        expect(other.locator(".messages")).to_contain_text(re.compile("Another adjudicator|inny rozjemca"))
    finally:
        context.close()
    assert not foreign
    assert AdjudicationClaim.objects.get(item=first).adjudicator == holder
    assert AdjudicationClaim.objects.get(item=second).adjudicator != holder


def test_wsd_editing_mode_uses_the_widget_keys_and_esc_returns(page: Page, live_server, login):
    answered = wsd_answered([["A", "B"]])
    start(page, live_server, login, answered)
    page.keyboard.press("1")
    page.keyboard.press("e")
    expect_editing(page, 1)
    expect(page.locator("#mode-badge")).to_have_text(re.compile("Editing|Edycja"))
    # The widget starts from annotator 1's answer; its own keys (letters) work here.
    expect(page.locator('.wsd-card[data-choice="A"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.press("c")
    expect(page.locator('.wsd-card[data-choice="C"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Escape")
    expect(page.locator("#mode-badge")).to_have_text(re.compile("Choosing|Wybieranie"))
    expect(page.locator("#edited-card")).to_have_attribute("aria-checked", "true")
    page.keyboard.press("c")  # choosing mode: the widget's keys do nothing
    page.keyboard.press("n")
    expect(page.locator("#decision-note")).to_be_focused()
    page.keyboard.type("Sens C.")
    page.keyboard.press("Control+Enter")
    expect_done(page, answered)
    adjudication = Adjudication.objects.get(item=answered.items[0])
    assert (adjudication.answer, adjudication.source, adjudication.note) == ({"answer": "C"}, "edited", "Sens C.")


def test_edit_then_esc_without_a_change_keeps_the_answer_edited_from(page: Page, live_server, login):
    answered = wsd_answered([["A", "B"]])
    start(page, live_server, login, answered)
    page.keyboard.press("2")
    page.keyboard.press("e")
    expect_editing(page, 2)
    page.keyboard.press("Escape")
    expect(page.locator("#mode-badge")).to_have_text(re.compile("Choosing|Wybieranie"))
    expect(page.locator("#edited-card")).to_be_hidden()
    expect(page.locator('.answer-card[data-key="2"]')).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Enter")
    expect_done(page, answered)
    assert decision(answered.items[0]) == ({"answer": "B"}, "annotation")


def test_f1_opens_the_keys_in_both_modes(page: Page, live_server, login):
    answered = wsd_answered([["A", "B"]])
    start(page, live_server, login, answered)
    page.keyboard.press("F1")
    expect(page.locator("#keys-help")).to_be_visible()
    expect(page.locator("#keys-list-choosing")).to_contain_text("F1")
    page.keyboard.press("Escape")
    page.keyboard.press("e")
    expect_editing(page, 1)
    page.keyboard.press("F1")
    expect(page.locator("#keys-help")).to_be_visible()


def test_the_keys_overlay_lists_both_modes(page: Page, live_server, login):
    answered = wsd_answered([["A", "B", "B"]])
    start(page, live_server, login, answered)
    page.keyboard.press("?")
    expect(page.locator("#keys-list-choosing")).to_contain_text("M")
    expect(page.locator("#keys-list-editing li")).not_to_have_count(0)


CORRECTION = MORPH_SENTENCE.replace("chaotycznemu", "chaotycznym")


def morph_answered():
    return answered_dataset(
        "morphosyntax",
        [MORPH_RECORD, {**MORPH_RECORD, "id": "m2"}],
        [
            [{"answer": "POPRAWNE", "corrected_sentence": ""}, {"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTION}],
            [{"answer": "POPRAWNE", "corrected_sentence": ""}, {"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTION}],
        ],
    )


def test_morphosyntax_both_modes(page: Page, live_server, login):
    answered = morph_answered()
    start(page, live_server, login, answered)
    expect(page.locator(".correction-diffs ins")).to_contain_text("chaotycznym")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect_item(page, answered, 1)
    page.keyboard.press("2")
    page.keyboard.press("e")
    expect_editing(page, 2)
    page.keyboard.press("n")  # the widget's key: NIEPOPRAWNE, to the numbered words
    page.keyboard.press("i")  # the answer field: free editing of the whole sentence
    expect(page.locator("#morph-correction")).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.type(" Naprawdę")
    page.keyboard.press("Enter")  # the editor's Enter saves
    expect_done(page, answered)
    assert decision(answered.items[0]) == ({"answer": "POPRAWNE", "corrected_sentence": ""}, "annotation")
    answer, source = decision(answered.items[1])
    assert source == "edited" and answer["corrected_sentence"].endswith(" Naprawdę")


def test_commas_both_modes(page: Page, live_server, login):
    answered = answered_dataset(
        "commas",
        [COMMAS_RECORD, {**COMMAS_RECORD, "id": "c-2"}],
        [
            [{"commas": [2], "optional": []}, {"commas": [2, 5], "optional": [7]}],
            [{"commas": [2], "optional": []}, {"commas": [4], "optional": []}],
        ],
    )
    start(page, live_server, login, answered)
    expect(page.locator("tr.differs")).to_have_count(2)  # positions 5 and 7
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    expect_item(page, answered, 1)
    page.keyboard.press("1")
    page.keyboard.press("e")
    expect_editing(page, 1)
    page.keyboard.press("3")  # the widget's digit: position 3 becomes required
    page.keyboard.press("Enter")
    expect_done(page, answered)
    assert decision(answered.items[0]) == ({"commas": [2, 5], "optional": [7]}, "annotation")
    assert decision(answered.items[1]) == ({"commas": [2, 3], "optional": []}, "edited")


DISCOURSE = passage(5)
DU = [unit.du_id for unit in units_in_text_order(DISCOURSE)]


def tree(relation_of_third: str) -> dict:
    return {
        "discourse_units": [{"du_id": DU[0], "head": None, "relation": None}]
        + [
            {"du_id": du_id, "head": DU[0], "relation": relation_of_third if number == 3 else "Elaboration"}
            for number, du_id in enumerate(DU[1:], start=2)
        ]
    }


def test_discourse_both_modes(page: Page, live_server, login):
    answered = answered_dataset(
        "discourse",
        [DISCOURSE, {**DISCOURSE, "id": "p-2"}],
        [[tree("Elaboration"), tree("Cause")], [tree("Elaboration"), tree("Cause")]],
    )
    start(page, live_server, login, answered)
    expect(page.locator(".discourse-differences tr.differs")).to_have_count(1)
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect_item(page, answered, 1)
    page.keyboard.press("2")
    page.keyboard.press("e")
    expect_editing(page, 2)
    page.keyboard.press("Delete")  # the editor's key: detach the selected unit
    page.keyboard.press("Enter")
    expect(page.locator("#decision-problems li")).not_to_have_count(0)  # not a valid tree: refused
    page.keyboard.press("Control+z")
    page.keyboard.press("Enter")
    expect_done(page, answered)
    assert decision(answered.items[0]) == (tree("Elaboration"), "annotation")
    assert decision(answered.items[1]) == (tree("Cause"), "edited")


def test_the_page_has_no_horizontal_scroll_at_360_px(page: Page, live_server, login):
    answered = answered_dataset(
        "discourse", [DISCOURSE], [[tree("Elaboration"), tree("Cause"), tree("Contrast")]]
    )
    page.set_viewport_size({"width": 360, "height": 740})
    start(page, live_server, login, answered)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
