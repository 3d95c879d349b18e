"""A panel participant's whole way in Chromium: the entry link, the consent page, the training
round, the items answered by keyboard, the completion page with the code and the return link
to the panel, which receives the code; a participant who fails the training round gets the
screened-out code."""

import re

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import Page, Route, expect

from annotation.core.roles import ANNOTATOR
from annotation.datasets.routing import set_routing
from annotation.models import Annotation, Dataset, StudyParticipant
from tests.annotate.conftest import wsd_records
from tests.factories import make_dataset
from tests.studies.panel import entry_url, make_study, panel_id
from tests.training.conftest import make_pool

pytestmark = pytest.mark.django_db(transaction=True)

QUOTA = 2
# The panel's completion page, played by a path of the live server that the test intercepts.
PANEL_RETURN = "/panel-return/"


@pytest.fixture
def study(live_server):
    # A live-server test's database is flushed between tests, the migration's groups with it.
    Group.objects.get_or_create(name=ANNOTATOR)
    dataset = make_dataset("wsd", wsd_records(4), [{"id": f"wsd-{n}", "answer": "A"} for n in range(1, 5)])
    dataset.threshold = 0.6
    dataset.save()
    records = [{**record, "id": f"train-{n}"} for n, record in enumerate(wsd_records(3), 1)]
    make_pool(dataset, Dataset.PoolKind.TRAINING, records, [{"id": f"train-{n}", "answer": "B"} for n in range(1, 4)])
    dataset = set_routing(dataset, routing=True, answers_per_item=1)
    return make_study((dataset, QUOTA), return_link=f"{live_server.url}{PANEL_RETURN}?cc={{code}}")


def enter_and_agree(page: Page, live_server, study, participant: str) -> None:
    page.goto(live_server.url + entry_url(study, participant))
    expect(page.locator(".consent")).to_contain_text("Zgadzam się na udział.")
    page.locator('button[value="consent"]').click()


def training_round(page: Page, letters: str) -> None:
    """Answer the round's items by keyboard: a letter, Enter, and Enter again past the feedback."""
    for number, letter in enumerate(letters, 1):
        expect(page).to_have_url(re.compile(rf"/training/{number}/$"))
        page.wait_for_function("() => window.Polis !== undefined")
        expect(page.locator(".wsd-card").first).to_be_focused()
        page.keyboard.press(letter.lower())
        page.keyboard.press("Enter")
        expect(page.locator("#training-next")).to_be_focused()
        page.keyboard.press("Enter")


def panel_receives(page: Page) -> list[str]:
    """The URLs the return link brought the browser to (the panel's page, answered here),
    routed only once the study is over, so that the study's own pages load as they would."""
    received: list[str] = []

    def answer(route: Route) -> None:
        received.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<p id=panel>Submission received</p>")

    page.route(re.compile(re.escape(PANEL_RETURN)), answer)
    return received


def test_entry_link_consent_training_items_and_the_completion_code_back_to_the_panel(page: Page, live_server, study,
                                                                                     page_errors):
    enter_and_agree(page, live_server, study, panel_id(1))
    training_round(page, "BBB")
    dataset_id = study.steps.get().dataset_id
    for position in range(1, QUOTA + 1):  # the next item swapped in, its position in the URL
        expect(page).to_have_url(re.compile(rf"/annotate/{dataset_id}/{position}/$"))
        page.wait_for_function("() => window.Polis !== undefined")
        expect(page.locator(".wsd-card").first).to_be_focused()
        page.keyboard.press("a")
        page.keyboard.press("Enter")  # save & next
    expect(page.locator(".completion-code")).to_have_text("C0MPL3T")
    participant = StudyParticipant.objects.get()
    assert participant.completed_at is not None
    assert Annotation.objects.filter(annotator=participant.user, status="submitted").count() == QUOTA
    received = panel_receives(page)
    page.locator("#return-link").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#panel")).to_have_text("Submission received")
    assert received == [f"{live_server.url}{PANEL_RETURN}?cc=C0MPL3T"]
    assert page_errors == []


def test_a_participant_who_fails_the_training_round_gets_the_screened_out_code(page: Page, live_server, study,
                                                                               page_errors):
    enter_and_agree(page, live_server, study, panel_id(2))
    training_round(page, "CCC")
    expect(page.locator(".completion-code")).to_have_text("SCR33N")
    participant = StudyParticipant.objects.get()
    assert participant.screened_out_at is not None and participant.completed_at is None
    assert not Annotation.objects.filter(annotator=participant.user).exists()
    received = panel_receives(page)
    page.locator("#return-link").click()
    expect(page.locator("#panel")).to_be_visible()
    assert received == [f"{live_server.url}{PANEL_RETURN}?cc=SCR33N"]
    assert page_errors == []
