"""WCAG 2.2 A/AA on every page, checked by axe-core in Chromium: one state of every page type
(the table PAGES, checked against the URL configuration like the permission matrix, so a page
added later fails here until it has a row) at 1280 px with every WCAG A/AA rule; the layout
rules again at 360 px; every page at 320 px (400% zoom, WCAG 1.4.10 Reflow) and 640 px (200%)
without sideways scrolling.

The pages show the demo campaign (`load_demo`): the six subtasks, a training pool, answered
datasets with disagreements, a campaign; the item pages are each subtask's second item (it has
every action: Previous, Skip, Flag) of an annotator's own queue."""

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import get_resolver, resolve, reverse
from playwright.sync_api import Browser, Page

from annotation.accounts.services import password_link
from annotation.adjudicate.selectors import open_disagreements
from annotation.annotate import routing
from annotation.core.files import SourceFile
from annotation.datasets.assigning import assign
from annotation.datasets.routing import set_routing
from annotation.models import Dataset
from annotation.results.computing import serve_report
from annotation.results.report import DEFAULT_SEED
from annotation.results.services import create_campaign, upload_model_submission
from tests.e2e.accessibility import LAYOUT_RULES, violations
from tests.e2e.layout import PHONE, assert_no_horizontal_scroll
from tests.e2e.test_narrow_screens import RECORDS
from tests.factories import DEFAULT_PASSWORD, assign_in_order, gold_against_answers, make_dataset, make_user
from tests.security.test_permission_matrix import every_url
from tests.studies.organizer import worked_study
from tests.studies.panel import entry_url, make_study, panel_id

pytestmark = pytest.mark.django_db(transaction=True)

WIDE = 1280
# The study the organizer's study pages show (tests/studies/organizer.py: every status of participant).
WORKED_STUDY = "worked-study"
REFLOW = 320  # CSS px: WCAG 1.4.10 (1280 px at 400% zoom)
ZOOMED = 640  # CSS px: 1280 px at 200% zoom (WCAG 1.4.4)


@dataclass(frozen=True)
class State:
    """One state of a page: its URL name, who looks at it, and what it shows."""

    name: str
    role: str  # "anonymous", "annotator", "adjudicator" or "organizer"
    shows: str = ""  # a subtask, a mode...
    narrow: bool = True  # its layout changes below a tablet's width: the layout rules at 360 px


PAGES = [
    State("login", "anonymous"),
    State("password_reset_confirm", "anonymous", "the form of a one-time link"),
    State("password_reset_complete", "anonymous"),
    State("password_change", "annotator"),
    State("password_change_done", "annotator", narrow=False),
    State("home", "annotator"),
    *(State("annotate_item", "annotator", subtask) for subtask in RECORDS),
    State("queue_done", "annotator"),
    State("annotate_continue", "annotator", "routing, nothing available now"),
    State("study_entry", "anonymous", "a panel study's consent"),
    State("my_answers", "annotator"),
    State("training_item", "annotator", "wsd"),
    State("adjudicate_home", "adjudicator"),
    State("adjudicate_item", "adjudicator", "wsd"),
    State("adjudicate_item", "adjudicator", "discourse, editing"),
    State("adjudicate_done", "adjudicator"),
    State("organizer_datasets", "organizer"),
    State("organizer_dataset", "organizer", "routing and the state of its sample"),
    State("organizer_import", "organizer"),
    State("organizer_accounts", "organizer"),
    State("organizer_dataset", "organizer"),
    State("organizer_agreement", "organizer"),
    State("organizer_items", "organizer"),
    State("organizer_item", "organizer", "an answered wsd case"),
    State("organizer_adjudication", "organizer"),
    State("gold_audit", "organizer", "an item whose answers stand against its gold"),
    State("organizer_training", "organizer"),
    State("organizer_import_gold", "organizer"),
    State("organizer_assign", "organizer"),
    State("organizer_sample", "organizer"),
    State("organizer_exports", "organizer"),
    State("organizer_export", "organizer"),
    State("organizer_report", "organizer"),
    State("organizer_campaigns", "organizer"),
    State("organizer_campaign", "organizer"),
    State("organizer_campaign_protocol", "organizer", "its textareas reflow at 320 px"),
    State("organizer_removal", "organizer", "the confirmation of an archiving"),
    State("organizer_model_removal", "organizer", narrow=False),
    State("organizer_studies", "organizer"),
    State("organizer_study_new", "organizer"),
    State("organizer_study", "organizer", "participants of every status, a test entry, one left out"),
    State("organizer_study_settings", "organizer"),
    State("organizer_study_delete_ids", "organizer", narrow=False),
]
# URL names that are no page of their own: the API and the admin (by prefix), redirects,
# downloads, posts; and the vendored Swagger UI, left out of the zero rule (README).
NOT_PAGES = {
    "healthz", "logout", "set_language", "annotation.annotate.views.favicon",
    "annotate_continue", "adjudicate_continue",  # redirects to an item
    "training_round",  # a redirect to the next training item until the round's outcome
    # A participant's redirect to their step; its end page (the code) is walked in
    # tests/e2e/test_study_path.py, participants having no password to log in here with.
    "study_continue",
    "organizer_control_plot",  # an SVG image, shown inside the training page
    "organizer_report_compute", "organizer_campaign_compute", "key_settings",  # POST only
    "organizer_campaign_paper", "organizer_campaign_release",  # POST only: zip downloads
    "organizer_study_state", "organizer_study_reconcile",  # POST only
    "api_docs",
}


def test_every_page_of_the_url_configuration_has_a_state_in_the_table():
    names = {name for name, _form, _ in every_url(get_resolver()) if not name.startswith(("admin:", "api_"))}
    missing = names - NOT_PAGES - {state.name for state in PAGES}
    assert not missing, f"pages without a row in PAGES (tests/e2e/test_accessibility.py): {sorted(missing)}"
    assert not {state.name for state in PAGES} - names, "rows of PAGES for URLs that no longer exist"


@dataclass
class Campaign:
    users: dict[str, User]
    paths: dict[State, str]


@pytest.fixture
def campaign() -> Campaign:
    call_command("load_demo", stdout=open("/dev/null", "w"))
    demo = {dataset.name: dataset for dataset in Dataset.objects.all()}
    organizer = User.objects.get(username="organizer")
    annotator = make_user("annotator", username="reader")
    item_paths, own = {}, {}
    for subtask, record in RECORDS.items():
        dataset = make_dataset(subtask, [record, {**record, "id": "second"}])
        assign_in_order(dataset, annotator)
        own[subtask] = dataset
        item_paths[subtask] = reverse("annotate_item", args=[dataset.pk, 2])
    trainee = User.objects.get(username="annotator1")
    answered = {subtask: demo[f"demo-answered-{subtask}"] for subtask in RECORDS}
    wsd = demo["demo-wsd"]
    demo_campaign = create_campaign(name="demo-campaign", datasets=list(answered.values()), created_by=organizer)
    case = {subtask: open_disagreements(dataset.pk)[0] for subtask, dataset in answered.items()}
    rater = answered["wsd"].assignments.first().annotator.username
    paths = {
        "login": reverse("login"),
        "password_reset_confirm": password_link(make_user("annotator", username="newcomer")),
        "password_reset_complete": reverse("password_reset_complete"),
        "password_change": reverse("password_change"),
        "password_change_done": reverse("password_change_done"),
        "home": reverse("home"),
        "queue_done": reverse("queue_done", args=[own["wsd"].pk]),
        "my_answers": reverse("my_answers"),
        "training_item": reverse("training_item", args=[wsd.pk, 1]),
        "adjudicate_home": reverse("adjudicate_home"),
        "adjudicate_done": reverse("adjudicate_done", args=[answered["wsd"].pk]),
        "organizer_datasets": reverse("organizer_datasets"),
        "organizer_import": reverse("organizer_import"),
        "organizer_accounts": reverse("organizer_accounts"),
        "organizer_campaigns": reverse("organizer_campaigns"),
        "organizer_campaign": reverse("organizer_campaign", args=[demo_campaign.pk]),
        "organizer_campaign_protocol": reverse("organizer_campaign_protocol", args=[demo_campaign.pk]),
        "organizer_export": reverse("organizer_export", args=[answered["wsd"].pk, rater]),
    }
    for name in ("organizer_dataset", "organizer_agreement", "organizer_import_gold", "organizer_assign",
                 "organizer_sample", "organizer_exports", "organizer_report"):
        paths[name] = reverse(name, args=[answered["wsd"].pk])
    paths["organizer_items"] = reverse("organizer_items", args=[answered["wsd"].pk])
    paths["organizer_item"] = reverse("organizer_item", args=[answered["wsd"].pk, case["wsd"]])
    paths["organizer_adjudication"] = reverse("organizer_adjudication", args=[answered["wsd"].pk])
    gold_against_answers(answered["wsd"])
    paths["gold_audit"] = reverse("gold_audit", args=[answered["wsd"].pk])
    paths["organizer_training"] = reverse("organizer_training", args=[wsd.pk])
    paths["organizer_removal"] = reverse("organizer_removal", args=[answered["wsd"].pk])
    lines = "".join(json.dumps({"id": item_id, "answer": "A"}) + "\n" for item_id in (RECORDS["wsd"]["id"], "second"))
    model = upload_model_submission(dataset=own["wsd"], name="model-x", submission=SourceFile("m.jsonl", lines.encode()))
    paths["organizer_model_removal"] = reverse("organizer_model_removal", args=[own["wsd"].pk, model.pk])
    routed = set_routing(make_dataset("commas", [RECORDS["commas"]]), routing=True, answers_per_item=1, quota=3)
    worked = worked_study(name=WORKED_STUDY)
    for name in ("organizer_study", "organizer_study_settings", "organizer_study_delete_ids"):
        paths[name] = reverse(name, args=[worked.pk])
    paths["organizer_studies"] = reverse("organizer_studies")
    paths["organizer_study_new"] = reverse("organizer_study_new")
    holder = make_user("annotator", username="holder")
    assign(routed, [holder, annotator], 1)
    routing.next_item(holder, routed.pk)  # the one item reserved by another: nothing for the reader now
    study = make_study((routed, 1))
    paths["study_entry"] = entry_url(study, panel_id(1))
    # The report pages find their computation finished, as in production where the worker made
    # it: computed inline by the first GET (the tests' immediate task backend), the campaign's
    # and the dataset's took longer than the 30 s a page load may take on a loaded machine.
    for target in ({"campaign": demo_campaign}, {"dataset": answered["wsd"]}):
        assert serve_report(**target, seed=DEFAULT_SEED, exclude_below_control=False).stored is not None
    by_state = {}
    for state in PAGES:
        if state.name == "annotate_continue":
            by_state[state] = reverse("annotate_continue", args=[routed.pk])
        elif state.name == "organizer_dataset" and state.shows:
            by_state[state] = reverse("organizer_dataset", args=[routed.pk])
        elif state.name == "annotate_item":
            by_state[state] = item_paths[state.shows]
        elif state.name == "adjudicate_item":
            subtask = state.shows.split(",")[0]
            path = reverse("adjudicate_item", args=[answered[subtask].pk, case[subtask]])
            by_state[state] = path + ("?edit=1" if "editing" in state.shows else "")
        else:
            by_state[state] = paths[state.name]
    users = {
        "annotator": annotator, "adjudicator": User.objects.get(username="adjudicator"), "organizer": organizer,
    }
    users["trainee"] = trainee
    for user in users.values():
        user.set_password(DEFAULT_PASSWORD)
        user.save()
    return Campaign(users, by_state)


class Visitor:
    """One browser context per role and width, logged in through the real form."""

    def __init__(self, browser: Browser, base_url: str, campaign: Campaign):
        self.browser, self.base_url, self.campaign = browser, base_url, campaign
        self.pages: dict[tuple[str, int], Page] = {}

    def open(self, state: State, width: int) -> Page:
        role = "trainee" if state.name == "training_item" else state.role
        if (role, width) not in self.pages:
            context = self.browser.new_context(viewport={"width": width, "height": 900}, locale="pl-PL")
            page = context.new_page()
            if role != "anonymous":
                page.goto(self.base_url + reverse("login"))
                page.locator("input[name=username]").fill(self.campaign.users[role].get_username())
                page.locator("input[name=password]").fill(DEFAULT_PASSWORD)
                page.locator("input[name=password]").press("Enter")
                page.wait_for_url(lambda url: "/accounts/login/" not in url)
            self.pages[(role, width)] = page
        page = self.pages[(role, width)]
        response = page.goto(self.base_url + self.campaign.paths[state])
        assert response is not None and response.ok, f"{state}: {response and response.status}"
        assert resolve(urlsplit(page.url).path).url_name == state.name, f"{state}: landed on {page.url}"
        page.wait_for_load_state("networkidle")
        return page

    def close(self) -> None:
        for page in self.pages.values():
            page.context.close()


@pytest.fixture
def visitor(browser, live_server, campaign):
    visiting = Visitor(browser, live_server.url, campaign)
    yield visiting
    visiting.close()


def label(state: State) -> str:
    return f"{state.name} ({state.role}{', ' + state.shows if state.shows else ''})"


def test_every_page_has_no_wcag_violation_at_1280_and_no_layout_violation_at_360(visitor):
    found = {}
    for state in PAGES:
        found[label(state)] = violations(visitor.open(state, WIDE))
        if state.narrow:
            found[label(state) + " at 360 px"] = violations(visitor.open(state, PHONE), rules=LAYOUT_RULES)
    found = {page: problems for page, problems in found.items() if problems}
    assert not found, "\n".join(f"{page}:\n  " + "\n  ".join(problems) for page, problems in found.items())


def test_every_page_reflows_at_320_px_and_at_200_percent_zoom(visitor):
    wide = []
    for state in PAGES:
        for width in (REFLOW, ZOOMED):
            page = visitor.open(state, width)
            try:
                assert_no_horizontal_scroll(page)
            except AssertionError as error:
                wide.append(f"{label(state)}: {error}")
    assert not wide, "\n".join(wide)


def test_the_vendored_api_docs_say_their_language_and_keep_contrast(page: Page, login, live_server):
    """Swagger UI is left out of the zero rule (its nested controls and small targets are its
    own), but says that it speaks English and meets the contrast minimum with our stylesheet."""
    login(page, make_user("annotator"))
    page.goto(live_server.url + reverse("api_docs"))
    page.locator(".opblock").first.wait_for()
    assert page.locator("html").get_attribute("lang") == "en"
    found = violations(page, rules=["html-has-lang", "html-lang-valid", "color-contrast"])
    assert not found, "\n".join(found)
