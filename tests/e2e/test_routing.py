"""Routing in a real browser: the start page asks for the next item by itself; with nothing
available now it says so and asks again by itself until an item is free."""

import re

import pytest
from playwright.sync_api import Page, expect

from annotation.annotate import routing
from annotation.datasets.assigning import assign
from annotation.datasets.routing import set_routing
from annotation.models import Assignment
from tests.annotate.test_routing import records
from tests.e2e.test_polish_walk import assert_polish, english_phrases
from tests.factories import DEFAULT_PASSWORD, make_dataset, make_user


@pytest.fixture
def routed(transactional_db):
    dataset = set_routing(make_dataset("commas", records(1)), routing=True, answers_per_item=1)
    holder, waiting = make_user(), make_user()
    assign(dataset, [holder, waiting], 1)
    return dataset, holder, waiting


def test_the_waiting_page_checks_again_by_itself_and_opens_the_freed_item(page: Page, live_server, login, routed,
                                                                          page_errors):
    dataset, holder, waiting = routed
    routing.next_item(holder, dataset.pk)  # the one item is reserved by someone else
    login(page, waiting)
    page.goto(f"{live_server.url}/annotate/{dataset.pk}/")
    expect(page.locator("#nothing-now")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/annotate/{dataset.pk}/$"))
    # The other annotator's reservation expires: the page's next check (every 15 s) takes the item.
    Assignment.objects.filter(annotator=holder).update(reserved_until="2000-01-01T00:00Z")
    expect(page).to_have_url(re.compile(rf"/annotate/{dataset.pk}/1/$"), timeout=25_000)
    expect(page.locator("#item-heading")).to_be_visible()
    assert page_errors == []


def test_the_start_page_opens_the_next_item_at_once(page: Page, live_server, login, routed, page_errors):
    dataset, holder, _ = routed
    login(page, holder)
    page.goto(f"{live_server.url}/annotate/{dataset.pk}/")
    expect(page).to_have_url(re.compile(rf"/annotate/{dataset.pk}/1/$"))
    assert Assignment.objects.get(annotator=holder).reserved_until is not None
    assert page_errors == []


def test_the_waiting_page_and_the_routing_section_are_in_polish(browser, live_server, routed):
    dataset, holder, waiting = routed
    routing.next_item(holder, dataset.pk)
    organizer = make_user("organizer")
    phrases = english_phrases()
    for user, path, annotator in ((waiting, f"/annotate/{dataset.pk}/", True),
                                  (organizer, f"/organize/{dataset.pk}/", False)):
        context = browser.new_context(locale="pl-PL")
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("input[name=username]").fill(user.get_username())
        page.locator("input[name=password]").fill(DEFAULT_PASSWORD)
        page.locator("input[name=password]").press("Enter")
        page.wait_for_url(lambda url: "/accounts/login/" not in url)
        page.goto(live_server.url + path)
        if annotator:
            expect(page.locator("#nothing-now")).to_contain_text("W tej chwili nie ma dla Ciebie żadnej pozycji")
        else:
            expect(page.locator("#routing")).to_contain_text("Przydział na bieżąco")
        assert_polish(page, phrases, path, annotator=annotator)
        context.close()
