"""Queue order, continue, skip, previous, end of queue, home, my answers, access."""

import re

import pytest
from django.urls import reverse

from annotation.datasets.organizing import withdraw_item
from annotation.datasets.progress import annotator_progress
from annotation.models import Annotation
from tests.annotate.conftest import wsd_records
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import htmx_post, item_url, next_location

pytestmark = pytest.mark.django_db


def submit(client, dataset, position: int, letter: str = "A", version: int = 0):
    response = htmx_post(
        client,
        item_url(dataset, position),
        {"intent": "submit", "answer": f'{{"answer": "{letter}"}}', "version": str(version)},
    )
    assert response.status_code == 200, response.content
    return next_location(response)


def skip(client, dataset, position: int) -> str:
    response = client.post(item_url(dataset, position), {"intent": "skip"})
    assert response.status_code == 302
    return response["Location"]


def continue_url(client, dataset) -> str:
    response = client.get(reverse("annotate_continue", args=[dataset.pk]))
    assert response.status_code == 302
    return response["Location"]


def end_page_when_done(client, dataset) -> str:
    """The end of the queue, where "continue" leads once nothing is left to answer."""
    done = reverse("queue_done", args=[dataset.pk])
    assert continue_url(client, dataset) == done
    page = client.get(done).content.decode()
    assert "You have answered every item assigned to you in this dataset." in page
    return page


def test_continue_opens_the_first_item_without_a_submitted_answer(logged_in, wsd_queue):
    _, dataset = wsd_queue
    assert continue_url(logged_in, dataset) == item_url(dataset, 1)
    submit(logged_in, dataset, 1)
    assert continue_url(logged_in, dataset) == item_url(dataset, 2)


def test_a_draft_does_not_count_as_answered(logged_in, wsd_queue):
    _, dataset = wsd_queue
    htmx_post(logged_in, item_url(dataset, 1), {"intent": "draft", "answer": '{"answer": "B"}', "version": "0"})
    assert continue_url(logged_in, dataset) == item_url(dataset, 1)


def test_save_and_next_opens_the_next_unanswered_item_in_order(logged_in, wsd_queue):
    _, dataset = wsd_queue
    submit(logged_in, dataset, 3)
    assert submit(logged_in, dataset, 2) == item_url(dataset, 4)  # 3 is answered already
    assert submit(logged_in, dataset, 5) == item_url(dataset, 1)  # from the end it wraps to the start


def test_skipped_items_come_back_at_the_end_in_the_order_they_were_skipped(logged_in, wsd_queue):
    _, dataset = wsd_queue
    assert skip(logged_in, dataset, 2) == item_url(dataset, 3)
    assert skip(logged_in, dataset, 1) == item_url(dataset, 3)
    assert continue_url(logged_in, dataset) == item_url(dataset, 3)
    submit(logged_in, dataset, 3)
    submit(logged_in, dataset, 4)
    assert submit(logged_in, dataset, 5) == item_url(dataset, 2)  # skipped first, back first
    assert submit(logged_in, dataset, 2) == item_url(dataset, 1)
    assert submit(logged_in, dataset, 1) == reverse("queue_done", args=[dataset.pk])


def test_a_skipped_item_keeps_its_number_in_the_order(logged_in, wsd_queue):
    _, dataset = wsd_queue
    skip(logged_in, dataset, 2)
    page = logged_in.get(item_url(dataset, 2)).content.decode()
    assert "Item 2 of 5 in your order" in page
    assert "skipped" in page


def test_skipping_the_last_unanswered_item_comes_back_to_it(logged_in, wsd_queue):
    _, dataset = wsd_queue
    for position in (1, 2, 3, 4):
        submit(logged_in, dataset, position)
    assert skip(logged_in, dataset, 5) == item_url(dataset, 5)


def test_previous_is_the_item_before_in_the_annotators_order(logged_in, wsd_queue):
    _, dataset = wsd_queue
    first = logged_in.get(item_url(dataset, 1)).content.decode()
    assert 'id="action-previous"' not in first
    third = logged_in.get(item_url(dataset, 3)).content.decode()
    assert re.search(r'href="%s" id="action-previous"|id="action-previous" href="%s"' % ((item_url(dataset, 2),) * 2), third)


def test_end_of_queue_when_everything_is_submitted(logged_in, wsd_queue):
    _, dataset = wsd_queue
    for position in range(1, 6):
        submit(logged_in, dataset, position)
    assert "5 of 5 submitted" in end_page_when_done(logged_in, dataset)


def test_end_of_queue_page_before_the_end_offers_to_continue(logged_in, wsd_queue):
    _, dataset = wsd_queue
    page = logged_in.get(reverse("queue_done", args=[dataset.pk])).content.decode()
    assert "Some items are still unanswered." in page
    assert reverse("annotate_continue", args=[dataset.pk]) in page


def test_home_lists_the_annotators_datasets_with_progress(logged_in, wsd_queue, annotator):
    _, dataset = wsd_queue
    make_dataset("wsd", wsd_records(2), name="not-mine")  # no assignment: not listed
    submit(logged_in, dataset, 1)
    page = logged_in.get(reverse("home")).content.decode()
    assert dataset.name in page
    assert "not-mine" not in page
    assert "1 of 5 submitted" in page
    assert reverse("annotate_continue", args=[dataset.pk]) in page


def test_organizers_find_the_organizer_pages_from_home(client):
    client.force_login(make_user("organizer"))
    page = client.get(reverse("home")).content.decode()
    assert reverse("organizer_datasets") in page


def test_my_answers_lists_answers_each_reopenable(logged_in, wsd_queue):
    _, dataset = wsd_queue
    submit(logged_in, dataset, 2)
    htmx_post(logged_in, item_url(dataset, 3), {"intent": "draft", "answer": '{"answer": "B"}', "version": "0"})
    page = logged_in.get(reverse("my_answers")).content.decode()
    assert item_url(dataset, 2) in page
    assert item_url(dataset, 3) in page  # drafts too, marked as such
    submitted = logged_in.get(reverse("my_answers"), {"status": "submitted"}).content.decode()
    assert item_url(dataset, 2) in submitted and item_url(dataset, 3) not in submitted
    reopened = logged_in.get(item_url(dataset, 2)).content.decode()
    assert '"answer": "A"' in reopened  # the stored answer is the page's initial answer


def test_another_annotators_item_is_404(client, wsd_queue):
    _, dataset = wsd_queue
    other = make_user("annotator")
    their_dataset = make_dataset("wsd", wsd_records(8))
    assign_in_order(their_dataset, other)
    client.force_login(wsd_queue[0])
    assert client.get(item_url(their_dataset, 1)).status_code == 404
    assert client.get(item_url(dataset, 6)).status_code == 404  # beyond the own queue
    assert client.get(reverse("annotate_continue", args=[their_dataset.pk])).status_code == 404
    response = htmx_post(client, item_url(their_dataset, 1), {"intent": "submit", "answer": '{"answer": "A"}', "version": "0"})
    assert response.status_code == 404
    assert not Annotation.objects.exists()


def test_only_annotators_open_items(client, wsd_queue):
    _, dataset = wsd_queue
    client.force_login(make_user("adjudicator"))
    assert client.get(item_url(dataset, 1)).status_code == 403
    client.logout()
    assert client.get(item_url(dataset, 1)).status_code == 302  # to the login page


def test_a_withdrawn_item_counts_neither_as_assigned_nor_as_submitted(logged_in, wsd_queue):
    """Otherwise an annotator who answered every other item is never done: the end page
    would send them to "continue", which finds nothing and sends them back."""
    annotator, dataset = wsd_queue
    organizer = make_user("organizer")
    items = list(dataset.items.order_by("ordinal"))
    submit(logged_in, dataset, 2)
    withdraw_item(items[1], organizer, "broken")  # answered
    withdraw_item(items[4], organizer, "broken")  # not answered
    for position in (1, 3, 4):
        submit(logged_in, dataset, position)

    assert "3 of 3 submitted" in end_page_when_done(logged_in, dataset)
    assert "3 of 3 submitted" in logged_in.get(reverse("home")).content.decode()
    item = logged_in.get(item_url(dataset, 4)).content.decode()
    assert "Item 4 of 5 in your order" in item  # the order keeps its numbers
    assert "3 of 3 submitted" in item
    (row,) = annotator_progress(dataset)
    assert (row.submitted, row.assigned) == (3, 3)


def test_a_withdrawn_item_opened_by_its_url_is_read_only_and_previous_passes_it_by(logged_in, wsd_queue):
    annotator, dataset = wsd_queue
    items = list(dataset.items.order_by("ordinal"))
    submit(logged_in, dataset, 2, "B")
    withdraw_item(items[1], make_user("organizer"), "broken")

    page = logged_in.get(item_url(dataset, 2)).content.decode()
    assert 'id="item-withdrawn"' in page and reverse("annotate_continue", args=[dataset.pk]) in page
    assert 'id="action-save" disabled' in page
    # Neither a draft nor a submit reaches it; the answer given before stays as it was.
    for intent in ("draft", "submit"):
        refused = htmx_post(logged_in, item_url(dataset, 2), {"intent": intent, "answer": '{"answer": "C"}', "version": "1"})
        assert refused.status_code == 403
        assert "withdrawn" in refused.content.decode()
    assert Annotation.objects.get(item=items[1]).answer == {"answer": "B"}
    # Shift+P (the previous item) from item 3 goes to item 1.
    third = logged_in.get(item_url(dataset, 3)).content.decode()
    assert f'id="action-previous" href="{item_url(dataset, 1)}"' in third
    assert 'id="item-withdrawn"' not in third and 'id="action-save" disabled' not in third
