"""A flag names its item by its text beside the id (an id alone tells the organizer nothing),
on the dataset page and in the row the resolution sends back."""

import pytest
from django.urls import reverse

from annotation.models import Flag
from annotation.subtasks.item_fields import item_text
from tests.factories import make_user
from tests.item_pages import htmx_post
from tests.organizer.conftest import import_sample

pytestmark = pytest.mark.django_db


def test_every_subtask_has_a_first_text_without_its_markup():
    for subtask in ("commas", "coreference", "discourse", "morphosyntax", "numerals", "wsd"):
        item = import_sample(subtask).items.order_by("ordinal").first()
        text = item_text(subtask, item.payload)
        assert len(text) > 20 and "[" not in text and item.external_id not in text, (subtask, text)


def test_a_flag_shows_its_item_text_on_the_page_and_in_its_row(client):
    dataset = import_sample("wsd")
    item = dataset.items.order_by("ordinal").first()
    flag = Flag.objects.create(item=item, raised_by=make_user(username="ala"), comment="Niejasne")
    client.force_login(make_user("organizer"))
    expected = item_text("wsd", item.payload)
    assert expected in client.get(reverse("organizer_dataset", args=[dataset.pk])).content.decode()
    row = htmx_post(client, reverse("organizer_dataset", args=[dataset.pk]), {"action": "resolve", "flag": flag.pk, "note": ""})
    assert expected in row.content.decode()
