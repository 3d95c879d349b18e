"""The organizer's agreement page in Chromium: the kind filter narrows the disagreements through htmx."""

import re

from playwright.sync_api import Page, expect

from annotation.demo_answers import submit_demo_answers
from annotation.results.agreement import agreement_report
from tests.factories import make_user
from tests.organizer.conftest import import_sample


def test_organizer_narrows_the_disagreements_by_kind(page: Page, live_server, login):
    dataset = import_sample("wsd")
    submit_demo_answers(dataset, [make_user(username=f"rater{number}") for number in (1, 2, 3)])
    login(page, make_user("organizer", username="olga"))

    page.goto(f"{live_server.url}/organize/{dataset.pk}/")
    page.get_by_role("link", name="Agreement").click()
    expect(page.get_by_role("heading", name=re.compile("Agreement"))).to_be_visible()
    expect(page.locator("#figure-alpha")).to_be_visible()
    report = agreement_report(dataset)
    narrowed = sum("A/B" in disagreement.kinds for disagreement in report.disagreements)
    assert 0 < narrowed < len(report.disagreements)
    rows = page.locator("#disagreements tbody tr")
    expect(rows).to_have_count(len(report.disagreements))

    page.get_by_label("Kind").select_option("A/B")
    expect(rows).to_have_count(narrowed)
    expect(page).to_have_url(re.compile(r"kind=A%2FB"))
    for index in range(narrowed):
        expect(rows.nth(index)).to_contain_text("A/B")
