"""The item page in a real browser: keys, saving, two browsers, failed autosaves."""

import json
import re

import pytest
from playwright.sync_api import Page, Route, expect

from annotation.models import Annotation, AnnotationRevision, Assignment, Flag
from tests.annotate.conftest import wsd_records
from tests.factories import assign_in_order, make_dataset, make_user


@pytest.fixture
def queue(transactional_db):
    annotator = make_user("annotator")
    dataset = make_dataset("wsd", wsd_records(4))
    assign_in_order(dataset, annotator)
    return annotator, dataset


def item_path(dataset, position: int) -> str:
    return f"/annotate/{dataset.pk}/{position}/"


def set_answer(page: Page, answer: dict) -> None:
    # Through the core, past the widget: so the focus leaves the widget's cards, where
    # Enter would choose the focused card instead of saving.
    page.evaluate("answer => { document.activeElement.blur(); Polis.setAnswer(answer); }", answer)


def posts(page: Page, dataset, position: int) -> list[dict]:
    """Every POST body the page sends to the item, as a dict of its fields."""
    sent: list[dict] = []

    def record(request) -> None:
        if request.method == "POST" and request.url.endswith(item_path(dataset, position)):
            sent.append(dict(pair.split("=", 1) for pair in (request.post_data or "").split("&") if "=" in pair))

    page.on("request", record)
    return sent


def test_keyboard_save_and_next_previous_skip_and_help(page: Page, login, open_item, queue, page_errors):
    annotator, dataset = queue
    login(page, annotator)
    open_item(page, item_path(dataset, 1))
    sent = posts(page, dataset, 1)

    set_answer(page, {"answer": "C"})
    page.locator("#action-save").focus()
    page.keyboard.press("Enter")  # on the focused button: one save, not two
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 2)) + "$"))
    assert [fields.get("intent") for fields in sent if fields.get("intent") == "submit"] == ["submit"]
    annotation = Annotation.objects.get()
    assert (annotation.answer, annotation.status) == ({"answer": "C"}, "submitted")
    # Active time was measured in the page and credited within the wall-clock time.
    assert 0 < annotation.active_ms <= (annotation.updated_at - Assignment.objects.get(position=1).created_at).total_seconds() * 1000

    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_be_visible()
    expect(page.locator("#keys-list")).to_contain_text("Previous item")
    page.keyboard.press("Escape")
    expect(page.locator("#keys-help")).to_be_hidden()
    page.keyboard.press("Shift+P")
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 1)) + "$"))
    page.wait_for_function("() => window.Polis !== undefined")
    assert page.evaluate("Polis.initialAnswer()") == {"answer": "C"}

    page.keyboard.press("?")  # the first item has no previous one: the key is not listed
    expect(page.locator("#keys-list")).to_contain_text("Skip (the item comes back at the end)")
    expect(page.locator("#keys-list")).not_to_contain_text("Previous item")
    page.keyboard.press("Escape")
    expect(page.locator("#keys-help")).to_be_hidden()

    page.keyboard.press("Enter")  # identical resubmit: goes on, writes nothing
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 2)) + "$"))
    assert AnnotationRevision.objects.count() == 1

    page.wait_for_function("() => window.Polis !== undefined")
    page.keyboard.press("Shift+S")
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 3)) + "$"))
    assert Assignment.objects.get(position=2).skipped_at is not None
    assert page_errors == []


def test_shortcuts_stay_quiet_while_typing_composing_or_with_alt(page: Page, login, open_item, queue, page_errors):
    annotator, dataset = queue
    login(page, annotator)
    open_item(page, item_path(dataset, 2))
    sent = posts(page, dataset, 2)
    page.evaluate(
        """() => {
        const field = document.createElement("input");
        field.id = "typing-field";
        document.getElementById("answer-form").prepend(field);
    }"""
    )
    page.locator("#typing-field").focus()
    page.keyboard.type("Zażółć? gęślą")
    page.keyboard.press("Shift+S")
    page.keyboard.press("Shift+P")
    expect(page.locator("#typing-field")).to_have_value("Zażółć? gęśląSP")
    expect(page.locator("#keys-help")).to_be_hidden()
    page.keyboard.press("Escape")  # leaves the field, so keys work again
    # During IME composition and with Alt (AltGr) held nothing fires.
    page.evaluate(
        """() => {
        for (const init of [{key: "Enter", code: "Enter", isComposing: true}, {key: "Enter", code: "Enter", altKey: true},
                            {key: "?", code: "Slash", shiftKey: true, altKey: true}]) {
            document.body.dispatchEvent(new KeyboardEvent("keydown", {...init, bubbles: true, cancelable: true}));
        }
    }"""
    )
    page.wait_for_timeout(300)
    assert sent == []
    expect(page.locator("#keys-help")).to_be_hidden()
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 2)) + "$"))
    page.keyboard.press("Shift+Slash")  # "?" typed with Shift on the physical key
    expect(page.locator("#keys-help")).to_be_visible()
    expect(page.locator("#keys-list")).to_contain_text("Skip (the item comes back at the end)")
    page.keyboard.press("Escape")
    # A widget's digit key is read from event.code: Shift+7 (which types "&") still fires it.
    page.evaluate(
        """() => {
        window.pressed = [];
        Polis.keys.register({code: "Digit7", label: "Seventh", run: () => window.pressed.push("7")});
    }"""
    )
    page.keyboard.press("Digit7")
    page.keyboard.press("Shift+Digit7")
    assert page.evaluate("window.pressed") == ["7", "7"]
    # The legend lists the widget's keys (the core's are on the buttons).
    expect(page.locator("#key-legend")).to_contain_text("7 Seventh")
    expect(page.locator("#key-legend")).not_to_contain_text("Previous item")
    assert page_errors == []


def test_a_stale_save_from_a_second_browser_is_refused_and_the_first_answer_kept(
    page: Page, login, open_item, queue, record_foreign_requests, page_errors
):
    annotator, dataset = queue
    login(page, annotator)
    second = page.context.browser.new_context()
    record_foreign_requests(second)
    other = second.new_page()
    login(other, annotator)
    open_item(page, item_path(dataset, 1))
    open_item(other, item_path(dataset, 1))

    set_answer(page, {"answer": "A"})
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 2)) + "$"))

    set_answer(other, {"answer": "B"})  # its autosave is based on version 0
    problems = other.locator("#answer-problems")
    expect(problems).to_contain_text("changed in another tab or browser")
    other.keyboard.press("Enter")
    expect(problems).to_contain_text("changed in another tab or browser")
    expect(other).to_have_url(re.compile(re.escape(item_path(dataset, 1)) + "$"))
    annotation = Annotation.objects.get()
    assert (annotation.answer, annotation.version, annotation.status) == ({"answer": "A"}, 1, "submitted")

    other.locator("#reload-item").click()
    other.wait_for_function("() => window.Polis !== undefined")
    assert other.evaluate("Polis.initialAnswer()") == {"answer": "A"}
    second.close()
    assert page_errors == []


@pytest.mark.parametrize("failure", ["aborted", "bad gateway", "login page"])
def test_a_failed_autosave_is_kept_retried_and_lands(page: Page, login, open_item, queue, page_errors, failure):
    annotator, dataset = queue
    login(page, annotator)
    open_item(page, item_path(dataset, 1))
    aborted: list[str] = []

    def abort_first_post(route: Route) -> None:
        if route.request.method == "POST" and not aborted:
            aborted.append(route.request.post_data or "")
            if failure == "aborted":
                route.abort()
            elif failure == "bad gateway":
                route.fulfill(status=502, body="Bad Gateway")
            else:  # an expired session: the POST ends on the login page, status 200
                route.fulfill(status=200, content_type="text/html", body="<form><input name=username></form>")
        else:
            route.continue_()

    page.route(re.compile(re.escape(item_path(dataset, 1)) + "$"), abort_first_post)
    set_answer(page, {"answer": "D"})
    status = page.locator("#save-status")
    expect(status).to_contain_text("Not saved")
    stored = page.evaluate("Object.entries(localStorage).filter(([key]) => key.startsWith('polis:draft:'))")
    assert [json.loads(value)["answer"] for _, value in stored] == [{"answer": "D"}]
    expect(status).to_contain_text("Draft saved", timeout=10_000)  # the retry went through
    assert len(aborted) == 1
    annotation = Annotation.objects.get()
    assert (annotation.answer, annotation.status) == ({"answer": "D"}, "draft")
    assert page.evaluate("Object.keys(localStorage).filter(key => key.startsWith('polis:draft:'))") == []
    assert page_errors == []


def test_a_change_that_never_reached_the_server_is_restored_after_reload(page: Page, login, open_item, queue, page_errors):
    annotator, dataset = queue
    login(page, annotator)
    open_item(page, item_path(dataset, 1))
    page.route(re.compile(re.escape(item_path(dataset, 1)) + "$"),
               lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    set_answer(page, {"answer": "B"})
    expect(page.locator("#save-status")).to_contain_text("Not saved")
    page.unroute(re.compile(re.escape(item_path(dataset, 1)) + "$"))
    open_item(page, item_path(dataset, 1))
    assert page.evaluate("Polis.initialAnswer()") == {"answer": "B"}
    expect(page.locator("#save-status")).to_contain_text("Draft saved", timeout=10_000)
    assert Annotation.objects.get().answer == {"answer": "B"}
    assert page_errors == []


def test_the_raw_json_form_answers_by_keyboard(page: Page, login, open_item, queue, page_errors, monkeypatch):
    monkeypatch.delattr("annotation.subtasks.wsd.WIDGET")  # the fallback of a subtask without a widget
    annotator, dataset = queue
    login(page, annotator)
    open_item(page, item_path(dataset, 1))
    field = page.locator("#raw-answer")
    expect(page.locator(".raw-item")).to_contain_text(dataset.items.get(ordinal=0).payload["reference_sentence"])
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type('{"answer": "B"')
    expect(page.locator("#answer-problems")).to_contain_text("Not valid JSON yet")
    page.keyboard.type("}")
    expect(page.locator("#answer-problems")).to_be_empty()
    page.keyboard.press("Enter")  # inside the text area Enter is a new line
    page.keyboard.press("Control+Enter")
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 2)) + "$"))
    assert Annotation.objects.get().answer == {"answer": "B"}
    page.wait_for_function("() => window.Polis !== undefined")
    page.locator("#raw-answer").fill('{"answer": "Z"}')
    page.keyboard.press("Control+Enter")
    expect(page.locator("#answer-problems")).to_contain_text("answer")
    assert Annotation.objects.filter(status="submitted").count() == 1
    page.screenshot(path="/tmp/raw_item.png", full_page=True)
    assert page_errors == []


def test_active_time_pauses_while_the_tab_is_hidden(page: Page, login, open_item, queue, page_errors):
    annotator, dataset = queue
    login(page, annotator)
    open_item(page, item_path(dataset, 1))
    hidden_at = page.evaluate(
        """() => {
        Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
        document.dispatchEvent(new Event("visibilitychange"));
        return performance.now();
    }"""
    )
    page.wait_for_timeout(2500)
    visible_at = page.evaluate(
        """() => {
        const now = performance.now();
        Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "visible"});
        document.dispatchEvent(new Event("visibilitychange"));
        return now;
    }"""
    )
    set_answer(page, {"answer": "A"})
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(re.escape(item_path(dataset, 2)) + "$"))
    # The next item is swapped into the same document, so its clock goes on: every moment the
    # save can have counted lies between the document's start (performance.now() counts from
    # it, and the page counts from its own script's start, which may come well before the
    # test gets control back on a busy machine) and now, the hidden ones excepted.
    elapsed_ms = page.evaluate("performance.now()")
    hidden_ms = visible_at - hidden_at
    assert hidden_ms >= 2500
    assert 0 < Annotation.objects.get().active_ms <= elapsed_ms - hidden_ms + 1
    assert page_errors == []


def test_flag_with_a_comment_by_keyboard(page: Page, login, open_item, queue, page_errors):
    annotator, dataset = queue
    login(page, annotator)
    open_item(page, item_path(dataset, 3))
    page.keyboard.press("Shift+F")
    expect(page.locator("#flag-dialog")).to_be_visible()
    expect(page.locator("#flag-comment")).to_be_focused()
    page.keyboard.type("Dwa zdania pasują? Enter tu nie zapisuje.")
    page.keyboard.press("Enter")  # a new line in the comment, no save of the answer
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the focused "Send the flag" button
    expect(page.locator("#flag-dialog")).to_be_hidden()
    expect(page.locator("#flag-status")).to_contain_text("Thank you")
    flag = Flag.objects.get()
    assert (flag.item.external_id, flag.comment) == ("wsd-3", "Dwa zdania pasują? Enter tu nie zapisuje.")
    assert not Annotation.objects.exists()
    assert page_errors == []


def test_api_docs_and_browsable_api_load_from_the_server_alone(page: Page, live_server, login, queue, foreign_requests):
    annotator, dataset = queue
    login(page, annotator)
    failed: list[str] = []
    page.on("response", lambda response: response.status >= 400 and failed.append(f"{response.status} {response.url}"))
    page.goto(f"{live_server.url}/api/docs/")
    operation = page.locator(".opblock-post", has_text="/api/annotations/").first
    expect(operation).to_be_visible()
    # The page fits the window: nothing wider than the viewport.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.goto(f"{live_server.url}/api/datasets/")
    expect(page.locator("body")).to_contain_text(dataset.name)
    assert failed == [] and foreign_requests == []
