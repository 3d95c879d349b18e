"""Save & next without a page load: the next item is swapped in at its own URL; back,
forward and reload load the item shown from the server; every widget starts again on the
item swapped in."""

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from annotation.models import Annotation, Flag
from tests.annotate.conftest import wsd_records
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import assigned_items, item_url
from tests.widgets.test_commas import RECORD as COMMAS
from tests.widgets.test_coreference import RECORD as COREFERENCE
from tests.widgets.test_discourse import passage
from tests.widgets.test_morphosyntax import RECORD as MORPHOSYNTAX
from tests.widgets.test_numerals import RECORD as NUMERALS
from tests.widgets.test_wsd import RECORD as WSD

# Set on the page by the test: it survives a swap, never a page load.
MARK = "() => { window.sameDocument = true; }"
SAME_DOCUMENT = "() => window.sameDocument === true"


def at(page: Page, path: str) -> None:
    expect(page).to_have_url(re.compile(re.escape(path) + "$"))


def through_history(page: Page, step: Callable[[], object], path: str) -> None:
    """Take a history step (back, forward, reload) to the item at ``path`` and wait until a
    new document of it has started its script. A step to an entry that an item swap pushed is
    a same-document navigation, after which the page's script itself reloads the item
    (htmx's refresh on a history miss): the step returns before that load has finished, and
    the next step taken meanwhile would abort it."""
    page.evaluate(MARK)
    step()
    at(page, path)
    page.wait_for_function("() => window.Polis !== undefined && window.sameDocument === undefined")


def test_the_next_item_comes_without_a_page_load_and_back_forward_and_reload_follow(
    page: Page, live_server, login, page_errors
):
    annotator = make_user("annotator")
    dataset = make_dataset("wsd", wsd_records(3))
    assign_in_order(dataset, annotator)
    login(page, annotator)
    page.goto(live_server.url + item_url(dataset, 1))
    page.wait_for_function("() => window.Polis !== undefined")
    page.evaluate(MARK)

    page.keyboard.press("b")
    page.keyboard.press("Enter")
    at(page, item_url(dataset, 2))
    assert page.evaluate(SAME_DOCUMENT)
    expect(page).to_have_title(re.compile(r"^Item 2 · "))
    expect(page.locator(".item-number")).to_contain_text("Item 2 of 3")
    expect(page.locator(".progress-text")).to_contain_text("1 of 3 submitted")
    expect(page.locator(".wsd-reference")).to_contain_text("Zdanie 2 z")
    # The item swapped in is the one its forms post to, and its widget started anew.
    for form in ("#answer-form", "#skip-form", "#flag-dialog form"):
        assert page.locator(form).get_attribute("action") == item_url(dataset, 2)
    assert page.locator("#language-next").get_attribute("value") == item_url(dataset, 2)
    assert page.evaluate("Polis.initialAnswer()") is None
    expect(page.locator(".wsd-card").first).to_be_focused()
    expect(page.locator('.wsd-card[aria-checked="true"]')).to_have_count(0)
    expect(page.locator("#action-previous")).to_have_attribute("href", item_url(dataset, 1))

    # A draft on the item swapped in is saved to it.
    page.keyboard.press("c")
    expect(page.locator("#save-status")).to_contain_text("Draft saved")
    page.keyboard.press("Enter")
    at(page, item_url(dataset, 3))
    assert page.evaluate(SAME_DOCUMENT)
    stored = {a.item.external_id: (a.answer, a.status, a.version) for a in Annotation.objects.select_related("item")}
    assert stored == {"wsd-1": ({"answer": "B"}, "submitted", 1), "wsd-2": ({"answer": "C"}, "submitted", 2)}
    # The flag dialog swapped in flags the item shown.
    page.keyboard.press("Shift+F")
    page.locator("#flag-comment").fill("Nie pasuje.")
    page.locator("#flag-dialog button.primary").click()
    expect(page.locator("#flag-status")).to_contain_text("Thank you")
    assert Flag.objects.get().item.external_id == "wsd-3"

    # Back and forward load the item from the server, with its answer as saved.
    through_history(page, page.go_back, item_url(dataset, 2))
    assert page.evaluate("Polis.initialAnswer()") == {"answer": "C"}
    expect(page.locator('.wsd-card[data-choice="C"]')).to_have_attribute("aria-checked", "true")
    through_history(page, page.go_back, item_url(dataset, 1))
    assert page.evaluate("Polis.initialAnswer()") == {"answer": "B"}
    through_history(page, page.go_forward, item_url(dataset, 2))
    assert page.evaluate("Polis.initialAnswer()") == {"answer": "C"}
    through_history(page, page.go_forward, item_url(dataset, 3))
    through_history(page, page.reload, item_url(dataset, 3))
    expect(page.locator(".item-number")).to_contain_text("Item 3 of 3")
    assert page.evaluate("Polis.initialAnswer()") is None
    assert page_errors == []


# subtask -> its two items, the keys answering the first, and the answer they give
WALKS = {
    "wsd": ([WSD, {**WSD, "id": "w2"}], ["b"], {"answer": "B"}),
    "coreference": ([COREFERENCE, {**COREFERENCE, "id": "c2"}], ["c"], {"answer": "C"}),
    "commas": ([COMMAS, {**COMMAS, "id": "c-2"}], ["Digit2", "Shift+Digit4"], {"commas": [2], "optional": [4]}),
    "numerals": ([NUMERALS, {**NUMERALS, "id": "n2"}], list("dwudziestu"), {"answer": "dwudziestu"}),
    "morphosyntax": ([MORPHOSYNTAX, {**MORPHOSYNTAX, "id": "m2"}], ["p"], {"answer": "POPRAWNE", "corrected_sentence": ""}),
}


@pytest.mark.parametrize("subtask", list(WALKS))
def test_each_widget_starts_again_on_the_item_swapped_in(page: Page, live_server, login, page_errors, subtask):
    records, keys, answer = WALKS[subtask]
    first, second = assigned_items(subtask, records)
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
    page.wait_for_function("() => window.Polis !== undefined")
    page.evaluate(MARK)
    for item, then in ((first, second.url), (second, "/done/")):
        for key in keys:
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        at(page, then)  # the end of the queue is a page of its own
        stored = item.stored()
        assert (stored.answer, stored.status) == (answer, Annotation.Status.SUBMITTED)
        if item is first:
            assert page.evaluate(SAME_DOCUMENT)
            # The legend lists the widget's keys once, not once per item seen.
            legend = page.locator("#key-legend li")
            assert legend.count() == len(set(legend.all_inner_texts()))
    assert page_errors == []


def test_the_discourse_editor_swapped_in_draws_its_own_passage(page: Page, live_server, login, page_errors):
    first, second = assigned_items("discourse", [passage(3, split=False), {**passage(4, split=False), "id": "p-second"}])
    login(page, first.annotator)
    page.goto(live_server.url + first.url)
    page.wait_for_function("() => window.Polis !== undefined")
    page.evaluate(MARK)
    page.keyboard.press("r")  # unit 1, selected on arrival, is the root
    page.keyboard.press("j")
    for _ in range(2):  # units 2 and 3: head 1, Elaboration (the selection then moves on)
        for key in ["1", "Enter", "e", "l", "Enter"]:
            page.keyboard.press(key)
    expect(page.locator(".tree-valid")).to_be_visible()
    page.keyboard.press("Enter")
    at(page, second.url)
    assert page.evaluate(SAME_DOCUMENT)
    assert first.stored().status == Annotation.Status.SUBMITTED

    expect(page.locator(".du-row")).to_have_count(4)
    page.keyboard.press("r")
    expect(page.locator(".du-row.is-root")).to_have_count(1)  # the tree partial of the second passage
    expect(page.locator(".du-row")).to_have_count(4)
    expect(page.locator("#save-status")).to_contain_text("Draft saved")
    stored = second.stored()
    assert (stored.status, stored.answer["discourse_units"][0]["head"]) == (Annotation.Status.DRAFT, None)
    assert page_errors == []
