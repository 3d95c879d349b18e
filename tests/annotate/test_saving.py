"""Saving answers through the item page: drafts, submits, revisions, versions, time, flags."""

import json
import time

import pytest
from django.core import signing
from django.urls import reverse

from annotation.annotate.queue import item_page
from annotation.annotate.services import CLOCK_SALT, save_answer
from annotation.core.errors import StaleVersion
from annotation.models import Annotation, AnnotationRevision, Flag
from tests.item_pages import htmx_post, item_url, next_location

pytestmark = pytest.mark.django_db


def save(client, dataset, answer, intent="submit", version=0, position=1, **fields):
    data = {"intent": intent, "answer": json.dumps(answer), "version": str(version), **fields}
    return htmx_post(client, item_url(dataset, position), data)


def test_a_draft_is_stored_with_its_first_revision(logged_in, wsd_queue):
    _, dataset = wsd_queue
    response = save(logged_in, dataset, {"answer": None}, intent="draft")
    assert response.status_code == 200
    annotation = Annotation.objects.get()
    assert (annotation.status, annotation.version, annotation.answer) == ("draft", 1, {"answer": None})
    assert list(annotation.revisions.values_list("version", "status")) == [(1, "draft")]
    # The page learns the new version out of band, and that this is the item view's answer.
    assert 'id="answer-version" value="1" hx-swap-oob="true"' in response.content.decode()
    assert response["X-Polis-Version"] == "1"


def test_every_save_appends_a_revision(logged_in, wsd_queue):
    _, dataset = wsd_queue
    save(logged_in, dataset, {"answer": "A"}, intent="draft", version=0)
    save(logged_in, dataset, {"answer": "B"}, intent="draft", version=1)
    response = save(logged_in, dataset, {"answer": "B"}, version=2)
    assert next_location(response) == item_url(dataset, 2)
    save(logged_in, dataset, {"answer": "C"}, version=3)  # an edit of a submitted answer
    annotation = Annotation.objects.get()
    assert (annotation.status, annotation.version, annotation.answer) == ("submitted", 4, {"answer": "C"})
    assert list(annotation.revisions.values_list("version", "status", "answer")) == [
        (1, "draft", {"answer": "A"}),
        (2, "draft", {"answer": "B"}),
        (3, "submitted", {"answer": "B"}),
        (4, "submitted", {"answer": "C"}),
    ]


def test_an_identical_resubmit_succeeds_and_writes_no_revision(logged_in, wsd_queue):
    _, dataset = wsd_queue
    save(logged_in, dataset, {"answer": "D"})
    before = Annotation.objects.get()
    # Sent again, even from a page that still believed it was at version 0.
    for version in (1, 0):
        response = save(logged_in, dataset, {"answer": "D"}, version=version)
        assert response.status_code == 200
        assert next_location(response) == item_url(dataset, 2)
    after = Annotation.objects.get()
    assert AnnotationRevision.objects.count() == 1
    assert (after.version, after.updated_at) == (before.version, before.updated_at)


def test_a_stale_save_with_a_different_answer_is_refused_and_the_first_kept(logged_in, wsd_queue):
    _, dataset = wsd_queue
    save(logged_in, dataset, {"answer": "A"})  # the first tab
    response = save(logged_in, dataset, {"answer": "B"}, version=0)  # the second, opened before
    assert response.status_code == 409
    assert response["X-Polis-Refused"] == "1"
    page = response.content.decode()
    assert "changed in another tab or browser" in page
    assert f'href="{item_url(dataset, 1)}" id="reload-item"' in page
    annotation = Annotation.objects.get()
    assert (annotation.answer, annotation.version) == ({"answer": "A"}, 1)
    assert AnnotationRevision.objects.count() == 1


def test_two_tabs_read_before_either_saved_a_first_answer_get_what_one_tab_after_the_other_gets(wsd_queue):
    """A first save is written in one statement unless an answer is stored by then: the page
    of the later tab still says there is none, and the stored one must decide as it would."""
    annotator, dataset = wsd_queue
    first_tab, second_tab = (item_page(annotator, dataset.pk, 1) for _ in range(2))
    saved = save_answer(page=first_tab, answer={"answer": "A"}, submit=True, based_on_version=0)
    assert (saved.changed, saved.annotation.version) == (True, 1)
    again = save_answer(page=second_tab, answer={"answer": "A"}, submit=True, based_on_version=0)
    assert (again.changed, again.annotation.pk) == (False, saved.annotation.pk)
    with pytest.raises(StaleVersion):
        save_answer(page=second_tab, answer={"answer": "B"}, submit=True, based_on_version=0)
    stored = Annotation.objects.get()
    assert (stored.answer, stored.version, stored.status) == ({"answer": "A"}, 1, "submitted")
    assert list(stored.revisions.values_list("version", "answer", "status", "active_ms")) == [
        (1, {"answer": "A"}, "submitted", stored.active_ms)
    ]
    assert stored.created_at == stored.updated_at == stored.submitted_at


def test_a_submit_gets_the_full_check_and_a_refusal_changes_nothing(logged_in, wsd_queue):
    _, dataset = wsd_queue
    response = save(logged_in, dataset, {"answer": "E"})
    assert response.status_code == 422
    refusal = response.content.decode()
    # A sentence for the annotator: no field path.
    assert "This choice is not one of the allowed ones (the answer)" in refusal and "answer:" not in refusal
    response = save(logged_in, dataset, {"answer": None})  # fine as a draft, not as an answer
    assert response.status_code == 422
    assert not Annotation.objects.exists()


def test_a_draft_needs_only_the_answer_shape(logged_in, wsd_queue):
    _, dataset = wsd_queue
    assert save(logged_in, dataset, {"answer": 5}, intent="draft").status_code == 422
    assert save(logged_in, dataset, {"label": "A"}, intent="draft").status_code == 422
    assert save(logged_in, dataset, ["A"], intent="draft").status_code == 422
    response = htmx_post(logged_in, item_url(dataset, 1), {"intent": "draft", "answer": "{not json", "version": "0"})
    assert response.status_code == 422
    assert not Annotation.objects.exists()


def test_a_frozen_dataset_refuses_every_change(logged_in, wsd_queue):
    _, dataset = wsd_queue
    save(logged_in, dataset, {"answer": "A"})
    dataset.frozen = True
    dataset.save()
    response = save(logged_in, dataset, {"answer": "B"}, version=1)
    assert response.status_code == 403
    assert "frozen" in response.content.decode()
    assert Annotation.objects.get().answer == {"answer": "A"}
    page = logged_in.get(item_url(dataset, 1)).content.decode()
    assert '"frozen": true' in page


def test_a_draft_cannot_demote_a_submitted_answer(logged_in, wsd_queue):
    _, dataset = wsd_queue
    save(logged_in, dataset, {"answer": "A"})
    assert save(logged_in, dataset, {"answer": "B"}, intent="draft", version=1).status_code == 422
    assert Annotation.objects.get().status == "submitted"


def clock_from(annotation_user_id: int, item_id: int, seconds_ago: float) -> str:
    return signing.dumps([annotation_user_id, item_id, int((time.time() - seconds_ago) * 1000)], salt=CLOCK_SALT)


def test_active_time_is_credited_up_to_the_wall_clock_time_since_the_page_was_served(logged_in, wsd_queue):
    annotator, dataset = wsd_queue
    item = dataset.items.get(ordinal=0)
    save(logged_in, dataset, {"answer": None}, intent="draft", active_ms="600000", clock=clock_from(annotator.pk, item.pk, 5))
    credited = Annotation.objects.get().active_ms
    assert 5000 <= credited < 60_000  # not the ten minutes claimed
    save(logged_in, dataset, {"answer": "B"}, version=1, active_ms="700", clock=clock_from(annotator.pk, item.pk, 5))
    annotation = Annotation.objects.get()
    # Since the last save well under a second passed: the 700 ms claimed is credited at most.
    assert credited <= annotation.active_ms <= credited + 700
    assert annotation.revisions.get(version=2).active_ms == annotation.active_ms


def test_a_forged_or_foreign_clock_credits_nothing(logged_in, wsd_queue):
    annotator, dataset = wsd_queue
    other_item = dataset.items.get(ordinal=1)
    save(logged_in, dataset, {"answer": None}, intent="draft", active_ms="5000", clock=clock_from(annotator.pk, other_item.pk, 60))
    save(logged_in, dataset, {"answer": None}, intent="draft", active_ms="5000", clock="forged", position=2)
    assert list(Annotation.objects.values_list("active_ms", flat=True)) == [0, 0]


def test_the_served_page_carries_a_clock_for_its_item(logged_in, wsd_queue):
    annotator, dataset = wsd_queue
    page = logged_in.get(item_url(dataset, 2)).content.decode()
    token = page.split('name="clock" id="answer-clock" value="')[1].split('"')[0]
    user_id, item_id, started_ms = signing.loads(token, salt=CLOCK_SALT)
    assert (user_id, item_id) == (annotator.pk, dataset.items.get(ordinal=1).pk)
    assert abs(started_ms - time.time() * 1000) < 60_000


def test_a_flag_is_stored_with_its_comment(logged_in, wsd_queue):
    annotator, dataset = wsd_queue
    response = htmx_post(logged_in, item_url(dataset, 2), {"intent": "flag", "comment": "  Dwa znaczenia pasują.  "})
    assert response.status_code == 200
    flag = Flag.objects.get()
    assert (flag.item.external_id, flag.raised_by, flag.comment) == ("wsd-2", annotator, "Dwa znaczenia pasują.")
    assert htmx_post(logged_in, item_url(dataset, 2), {"intent": "flag", "comment": "  "}).status_code == 422
    assert Flag.objects.count() == 1


def test_without_javascript_a_refused_submit_shows_the_page_with_the_problems(logged_in, wsd_queue):
    _, dataset = wsd_queue
    response = logged_in.post(item_url(dataset, 1), {"intent": "submit", "answer": '{"answer": "E"}', "version": "0"})
    assert response.status_code == 422
    assert 'id="answer-problems"' in response.content.decode()
    response = logged_in.post(item_url(dataset, 1), {"intent": "submit", "answer": '{"answer": "A"}', "version": "0"})
    assert response.status_code == 302 and response["Location"] == item_url(dataset, 2)


def test_save_and_next_sends_the_next_item_for_htmx_to_swap_in_at_its_url(logged_in, wsd_queue):
    annotator, dataset = wsd_queue
    response = save(logged_in, dataset, {"answer": "A"}, position=1)
    assert response.status_code == 200
    assert (response["HX-Retarget"], response["HX-Push-Url"]) == ("#item-area", item_url(dataset, 2))
    assert response["HX-Reswap"].startswith("outerHTML ")
    assert response["X-Polis-Version"] == "1"
    area = response.content.decode()
    # Only the title, the item area and the language switch's return address: no layout, no scripts.
    assert area.lstrip().startswith("<title>Item 2 · ") and "<header" not in area and "<script src" not in area
    assert f'value="{item_url(dataset, 2)}" id="language-next" hx-swap-oob="true"' in area
    assert area.count('id="item-area"') == 1
    # Every form of the area posts to the next item, and its clock is the next item's.
    assert f'action="{item_url(dataset, 1)}"' not in area
    assert area.count(f'action="{item_url(dataset, 2)}"') == 3
    assert "Zdanie 2 z" in area and "Zdanie 1 z" not in area
    token = area.split('name="clock" id="answer-clock" value="')[1].split('"')[0]
    assert signing.loads(token, salt=CLOCK_SALT)[:2] == [annotator.pk, dataset.items.get(ordinal=1).pk]


def test_save_and_next_at_the_end_of_the_queue_opens_the_end_page(logged_in, wsd_queue):
    _, dataset = wsd_queue
    for position in range(1, 5):
        save(logged_in, dataset, {"answer": "A"}, position=position)
    response = save(logged_in, dataset, {"answer": "A"}, position=5)
    assert response["HX-Redirect"] == reverse("queue_done", args=[dataset.pk])
    assert "HX-Push-Url" not in response
