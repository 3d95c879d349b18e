"""Every page carries the Content-Security-Policy (scripts, styles, images from this site only,
no inline script), our pages hold no inline script, event handler or style attribute (the
policy would block them), and hostile item text is inert on every page, the admin included."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import get_resolver

from annotation.models import Annotation, Flag
from scoring.validation import check_inputs
from tests.factories import assign_in_order, make_dataset, make_user
from tests.security.conftest import sample_records
from tests.security.test_access import _patterns, _url

pytestmark = pytest.mark.django_db

SUBTASKS = ["morphosyntax", "numerals", "wsd", "coreference", "discourse", "commas"]
HOSTILE = (
    '<script>alert("x")</script><img src=x onerror=alert(1)>'
    '<a href="javascript:alert(1)">k</a>\u202e\u200fodwrócone" onmouseover="alert(1)'
)


class Blocked(HTMLParser):
    """What a strict policy blocks, as the browser parses it: inline scripts, event-handler
    attributes, style attributes and elements, javascript: links."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("<style>")
        self.found += [f"<{tag} {name}=...>" for name, _ in attrs if name.startswith("on") or name == "style"]
        self.found += [f"<{tag} {name}=javascript:>" for name, value in attrs
                       if (value or "").strip().lower().startswith("javascript:")]


def blocked(body: str) -> list[str]:
    parser = Blocked()
    parser.feed(body)
    return parser.found


def hostile(subtask: str, record: dict, prefix: str) -> dict:
    """The record with ``prefix`` before every text a page shows (ids and markers kept), still a
    valid input line (as every stored item is): coreference candidates must repeat the text of
    their mention, so they are left as they are."""
    def walk(value, key=""):
        if isinstance(value, dict):
            if subtask == "coreference" and key == "candidates":
                return value
            return {name: walk(item, name) for name, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, str) and not key.endswith("id"):
            return prefix + value
        return value
    made = walk(record)
    _, problems = check_inputs(subtask, (json.dumps(made) + "\n").encode(), "in.jsonl")
    assert problems == [], problems
    return made


@pytest.fixture
def everyone():
    """A user with every role and staff rights, and a dataset of every subtask with hostile text,
    assigned to them, answered as a draft and flagged."""
    user = make_user("organizer")
    user.groups.add(*(Group.objects.get_or_create(name=role)[0] for role in ("annotator", "adjudicator")))
    user.is_superuser = True
    user.save()
    datasets = []
    for subtask in SUBTASKS:
        records = [hostile(subtask, record, HOSTILE) for record in sample_records(subtask, 2)]
        if subtask == "commas":  # and one line of 100 kB
            records[0]["sentence_with_positions"] += " słowo" * 20_000
        dataset = make_dataset(subtask, records, name=f"{subtask} <script>alert(\"x\")</script>")
        assign_in_order(dataset, user)
        item = dataset.items.get(ordinal=0)
        Annotation.objects.create(item=item, annotator=user, answer={"note": HOSTILE}, version=1)
        Flag.objects.create(item=item, raised_by=user, comment=HOSTILE)
        datasets.append(dataset)
    client = Client(raise_request_exception=True)
    client.force_login(user)
    return user, datasets, client


def every_page(user, datasets) -> list[str]:
    urls = []
    for route, _ in _patterns(get_resolver()):
        if route.startswith(("admin/", "i18n/", "accounts/logout", "accounts/password", "accounts/reset")):
            continue
        if "<" not in route:
            urls.append("/" + route)
            continue
        for dataset in datasets:
            values = {
                "dataset_pk": dataset.pk, "pk": dataset.pk, "position": 1, "annotator": user.username,
                "item_pk": dataset.items.first().pk, "model_pk": 1, "token": "no-such-study",
            }
            urls.append(_url(route, values))
    item = datasets[0].items.first()
    urls += ["/admin/", "/admin/annotation/item/", f"/admin/annotation/item/{item.pk}/change/",
             "/admin/annotation/dataset/", "/admin/annotation/flag/", "/admin/annotation/annotation/",
             "/nowhere/"]
    return urls


def test_every_page_carries_the_policy_and_shows_hostile_text_inert(everyone):
    user, datasets, client = everyone
    # The one who annotates a dataset may not adjudicate it: its adjudication pages are seen
    # by an adjudicator of no dataset.
    adjudicator = Client(raise_request_exception=True)
    adjudicator.force_login(make_user("adjudicator"))
    checked = 0
    for url in every_page(user, datasets):
        adjudicating = url.startswith(("/adjudicate/", "/api/adjudication/"))
        response = (adjudicator if adjudicating else client).get(url)
        if response.status_code in (301, 302, 405):
            continue
        assert response.status_code in (200, 404), (url, response.status_code)
        policy = response.headers.get("Content-Security-Policy", "")
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, url
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, url
        assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy, url
        if not response["Content-Type"].startswith("text/html"):
            continue
        body = response.content.decode()
        assert '<script>alert("x")' not in body and "<img src=x onerror" not in body, url
        # The hostile text made no element or attribute; our own pages (not the admin's) have
        # nothing the policy blocks.
        found = blocked(body)
        assert not [entry for entry in found if "javascript" in entry or entry.startswith(("<img", "<a "))], url
        if not url.startswith("/admin/"):
            assert found == [], (url, found)
        checked += 1
    assert checked >= 20


def test_the_login_page_and_the_tree_partial_carry_the_policy(everyone):
    _, datasets, client = everyone
    assert "script-src 'self'" in Client().get("/accounts/login/").headers["Content-Security-Policy"]
    discourse = next(dataset for dataset in datasets if dataset.subtask == "discourse")
    response = client.post(f"/annotate/{discourse.pk}/1/?partial=tree", {"answer": "{}"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert '<script>alert("x")' not in response.content.decode()


def test_no_template_writes_a_style_attribute():
    """The policy refuses every style attribute: one in a template (the discourse trees of the
    adjudication page once set their indentation so) would be dropped by the browser."""
    templates = Path(settings.BASE_DIR) / "templates"
    found = [
        f"{path.relative_to(templates)}:{number}"
        for path in sorted(templates.rglob("*.html"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\sstyle\s*=", line)
    ]
    assert found == []
