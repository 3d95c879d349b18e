"""Every annotator page on a phone (360 px) and a tablet (768 px) touch screen: nothing
wider than the screen, nothing overlapping, every action reachable; and the widgets
answered by tap alone on a phone."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Annotation
from tests.e2e.layout import PHONE, TABLET, assert_apart, assert_fits
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import AssignedItem, assigned_items
from tests.widgets.test_commas import RECORD as COMMAS
from tests.widgets.test_coreference import RECORD as COREFERENCE
from tests.widgets.test_discourse import passage
from tests.widgets.test_morphosyntax import RECORD as MORPHOSYNTAX
from tests.widgets.test_numerals import RECORD as NUMERALS
from tests.widgets.test_wsd import RECORD as WSD

RECORDS = {
    "wsd": WSD,
    "coreference": COREFERENCE,
    "commas": COMMAS,
    "numerals": NUMERALS,
    "morphosyntax": MORPHOSYNTAX,
    "discourse": passage(10),
}
# The page's own actions, then each widget's.
ITEM_ACTIONS = ["#action-save", "#action-previous", "#action-skip", "#action-flag", "#action-keys", "#guideline > summary"]
WIDGET_ACTIONS = {
    "wsd": [".wsd-card"],
    "coreference": [".coref-candidate", ".coref-context [data-choice]"],
    "commas": [".comma-slot"],
    "numerals": ["#numeral-answer"],
    "morphosyntax": [".morph-verdicts [role=radio]"],
    "discourse": [".du-row .du-text", ".discourse-controls button", "#discourse-head-input", "#discourse-relation-filter", ".relation-option"],
}
DISCOURSE_APART = [("#discourse-list", ".discourse-tree-pane"), ("#discourse-list", ".discourse-panel"), (".discourse-panel", ".discourse-tree-pane")]


def two_items(subtask: str):
    return assigned_items(subtask, [RECORDS[subtask], {**RECORDS[subtask], "id": "second"}])


@pytest.mark.parametrize("width", [PHONE, TABLET])
@pytest.mark.parametrize("subtask", list(RECORDS))
def test_the_item_page_fits_the_screen(screen, live_server, login, subtask, width):
    first, second = two_items(subtask)
    page = screen(width)
    login(page, first.annotator)
    page.goto(live_server.url + second.url)  # the second: it has a "Previous" button
    page.wait_for_function("() => window.Polis !== undefined")
    assert_fits(page, apart=DISCOURSE_APART if subtask == "discourse" else (), actions=ITEM_ACTIONS + WIDGET_ACTIONS[subtask])
    if subtask == "discourse":
        # With a unit selected, every other unit offers itself as the head.
        page.locator('.du-row[data-number="2"] .du-text').click()
        expect(page.locator(".discourse-widget")).to_have_class(re.compile("has-selection"))
        assert_fits(page, apart=DISCOURSE_APART, actions=['.du-row:not([data-number="2"]) .du-set-head'])
    if subtask == "morphosyntax":
        page.locator('.morph-verdicts [data-choice="NIEPOPRAWNE"]').click()
        assert_fits(page, actions=["#morph-correction", ".morph-restore"])


def test_the_discourse_unit_list_is_above_the_tree_below_a_tablets_width(screen, live_server, login):
    (item,) = assigned_items("discourse", [RECORDS["discourse"]])
    for width, beside in ((PHONE, False), (TABLET - 1, False), (TABLET, True)):
        page = screen(width)
        login(page, item.annotator)
        page.goto(live_server.url + item.url)
        units = page.locator("#discourse-list").bounding_box()
        tree = page.locator(".discourse-tree-pane").bounding_box()
        if beside:
            assert units["x"] + units["width"] <= tree["x"], (width, units, tree)
        else:
            assert units["y"] + units["height"] <= tree["y"], (width, units, tree)
        assert_apart(page, "#discourse-list", ".discourse-side")


@pytest.mark.parametrize("width", [PHONE, TABLET])
def test_the_end_of_the_queue_my_answers_and_my_datasets_fit_the_screen(screen, live_server, login, width):
    item, _ = two_items("wsd")
    page = screen(width)
    login(page, item.annotator)
    page.goto(live_server.url + item.url)
    page.locator('.wsd-card[data-choice="B"]').tap()
    page.locator("#action-save").tap()
    expect(page).to_have_url(re.compile(r"/2/$"))
    page.locator('.wsd-card[data-choice="C"]').tap()
    page.locator("#action-save").tap()
    expect(page).to_have_url(re.compile(r"/done/$"))
    assert_fits(page, actions=["main a", "header a", "header button"])
    page.locator("main a", has_text="My answers").tap()
    expect(page.locator("table.answers tbody tr")).to_have_count(2)
    assert_fits(page, actions=["main a", "header a", "header button"])
    page.locator("header a", has_text="My datasets").tap()
    expect(page).to_have_url(live_server.url + "/")
    assert_fits(page, actions=["main a", "header a", "header button"])


def test_a_phone_answers_every_widget_by_tap_alone(screen, live_server, login):
    annotator = make_user("annotator")
    page = screen(PHONE)
    login(page, annotator)

    for subtask in ("wsd", "coreference", "commas", "numerals", "morphosyntax"):
        dataset = make_dataset(subtask, [RECORDS[subtask], {**RECORDS[subtask], "id": "second"}])
        assign_in_order(dataset, annotator)
        first, second = (
            AssignedItem(annotator, item, reverse("annotate_item", args=[dataset.pk, position]))
            for position, item in enumerate(dataset.items.order_by("ordinal"), start=1)
        )
        page.goto(live_server.url + first.url)
        page.wait_for_function("() => window.Polis !== undefined")
        if subtask == "wsd":
            page.locator('.wsd-card[data-choice="D"]').tap()
            answer = {"answer": "D"}
        elif subtask == "coreference":
            page.locator('.coref-context [data-choice="B"]').tap()  # the mention in the text
            answer = {"answer": "B"}
        elif subtask == "commas":
            slots = page.locator(".comma-slot")
            slots.nth(1).tap()  # required
            slots.nth(3).tap()
            slots.nth(3).tap()  # optional
            answer = {"commas": [2], "optional": [4]}
        elif subtask == "numerals":
            page.locator("#numeral-answer").tap()
            expect(page.locator("#numeral-answer")).to_be_focused()
            page.keyboard.insert_text("dwudziestu")  # what the on-screen keyboard types
            answer = {"answer": "dwudziestu"}
        else:
            page.locator('.morph-verdicts [data-choice="NIEPOPRAWNE"]').tap()
            editor = page.locator("#morph-correction")
            expect(editor).to_be_visible()  # the numbered words have the focus; a tap reaches the editor
            editor.fill("Zmienione zdanie.")
            page.locator(".morph-restore").tap()  # back to the sentence as it was
            expect(editor).to_have_value(MORPHOSYNTAX["sentence"])
            editor.tap()
            page.keyboard.press("Control+End")
            page.keyboard.insert_text(" Tak.")
            answer = {"answer": "NIEPOPRAWNE", "corrected_sentence": MORPHOSYNTAX["sentence"] + " Tak."}
        page.locator("#action-save").tap()
        expect(page).to_have_url(re.compile(re.escape(second.url) + "$"))
        stored = first.stored()
        assert (stored.status, stored.answer) == (Annotation.Status.SUBMITTED, answer), subtask


def test_the_discourse_head_buttons_stay_clear_of_the_problems_on_a_phone(screen, live_server, login):
    (item,) = assigned_items("discourse", [RECORDS["discourse"]])
    page = screen(PHONE)
    login(page, item.annotator)
    page.goto(live_server.url + item.url)
    page.wait_for_function("() => window.Polis !== undefined")
    for keys in ("r", "j", "r", "j"):  # two roots: a problem on both, unit 3 selected
        page.keyboard.press(keys)
    # Each key has the server redraw the rows (htmx, queued): measure once the last drawing is
    # in, not the rows of an earlier one while they are being replaced.
    expect(page.locator('.du-row[data-number="3"]')).to_have_class(re.compile(r"\bis-selected\b"))
    expect(page.locator(".htmx-request")).to_have_count(0)
    expect(page.locator(".du-problems")).not_to_have_count(0)
    assert_apart(page, ".du-set-head", ".du-problems")
    assert_fits(page, actions=['.du-row:not(.is-selected) .du-set-head'])
