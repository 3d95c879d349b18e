"""A routed dataset's items are ready for adjudication, and complete for the report, at k
submitted answers (or whatever was submitted once frozen); its pilot items are marked in every
export, in the report and in the item browser."""

import pytest
from django.urls import reverse

from annotation.adjudicate.selectors import dataset_counts
from annotation.annotate import routing
from annotation.annotate import services as annotating
from annotation.annotate.queue import item_page
from annotation.datasets.assigning import assign
from annotation.datasets.routing import set_routing
from annotation.datasets.sampling import set_sample
from annotation.models import Assignment
from annotation.results.exporting import DatasetReads, build_export
from tests.annotate.test_routing import records
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


def answer_all(dataset, users, answers):
    """Each user answers until routing has nothing for them; answers[i] is user i's answer."""
    for user, answer in zip(users, answers, strict=True):
        while (served := routing.next_item(user, dataset.pk)).state == routing.ITEM:
            page = item_page(user, dataset.pk, served.position)
            annotating.save_answer(page=page, answer=answer, submit=True, based_on_version=page.answer_version)


def test_a_routed_item_is_ready_and_complete_at_k_answers_though_a_reservation_lapsed():
    dataset = set_routing(make_dataset("commas", records(2)), routing=True, answers_per_item=2)
    users = [make_user() for _ in range(3)]
    assign(dataset, users, 2)
    routing.next_item(users[2], dataset.pk)  # opened and left: its reservation lapses unanswered
    Assignment.objects.filter(annotator=users[2]).update(reserved_until="2000-01-01T00:00Z")
    answer_all(dataset, users[:2], [{"commas": [1], "optional": []}, {"commas": [2], "optional": []}])
    assert dataset_counts(dataset.pk).open == 2  # two answers differ on both items: two cases
    dataset.refresh_from_db()
    assert DatasetReads(dataset).complete_items() == ["c000", "c001"]


def test_the_pilot_is_marked_in_every_export_the_report_and_the_item_browser(client):
    dataset = make_dataset("commas", records(6))
    set_sample(dataset, 4, 11)
    dataset = set_routing(dataset, routing=True, answers_per_item=1, pilot_size=1, pilot_open=True)
    users = [make_user(), make_user()]
    assign(dataset, users, 1)
    answer_all(dataset, users, [{"commas": [1], "optional": []}] * 2)
    pilot = dataset.items.get(sample_rank=1).external_id
    export = build_export(dataset, f"annotator:{users[0].username}")
    assert export.pilot == [pilot]
    records_ = build_export(dataset, "all").data.decode().splitlines()
    assert sum('"pilot": true' in line for line in records_) == 2  # both annotators answered the pilot item
    client.force_login(make_user("organizer"))
    response = client.get(reverse("api_dataset_export", args=[dataset.pk]), {"source": f"annotator:{users[0].username}"})
    assert response["X-Export-Pilot"] == pilot
    listed = client.get(reverse("organizer_items", args=[dataset.pk]), {"state": "pilot"})
    assert [item.external_id for item in listed.context["page"].object_list] == [pilot]
