"""The start page: a dataset not begun offers to start it, one begun to continue it; an
organizer finds their navigation bar there as on their own pages."""

import pytest
from django.urls import reverse

from tests.factories import make_user
from tests.item_pages import htmx_post, item_url

pytestmark = pytest.mark.django_db


def dataset_action(client, dataset) -> str:
    page = client.get(reverse("home")).content.decode()
    link = f'href="{reverse("annotate_continue", args=[dataset.pk])}">'
    return page.split(link, 1)[1].split("<", 1)[0]


def test_a_dataset_not_begun_says_start_and_a_begun_one_continue(logged_in, wsd_queue):
    _annotator, dataset = wsd_queue
    assert dataset_action(logged_in, dataset) == "Start"
    htmx_post(logged_in, item_url(dataset, 1), {"intent": "submit", "answer": '{"answer": "A"}', "version": "0"})
    assert dataset_action(logged_in, dataset) == "Continue"


def test_the_organizers_start_page_has_their_navigation_bar(client):
    client.force_login(make_user("organizer"))
    page = client.get(reverse("home")).content.decode()
    nav = page.split("<nav", 1)[1].split("</nav>", 1)[0]
    for name in ("organizer_datasets", "organizer_campaigns", "organizer_accounts"):
        assert f'href="{reverse(name)}"' in nav
