"""The demo's answered datasets: every disagreement of all six subtasks can be settled, and
the queue then ends."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.adjudicate import selectors as cases
from annotation.models import Adjudication, Dataset
from tests.adjudicate.conftest import person

pytestmark = pytest.mark.django_db


def test_every_demo_disagreement_is_settled_through_the_page(client):
    call_command("load_demo", stdout=open("/dev/null", "w"))
    adjudicator = person("adjudicator")
    client.force_login(adjudicator)
    datasets = Dataset.objects.filter(name__startswith="demo-answered-").order_by("name")
    assert datasets.count() == 6
    listed = {entry.dataset.name: entry.counts for entry in cases.adjudicator_datasets(adjudicator)}
    for dataset in datasets:
        assert listed[dataset.name].open > 0, dataset.name
        url = client.get(reverse("adjudicate_continue", args=[dataset.pk])).url
        settled = 0
        while "/done/" not in url:
            page = client.get(url)
            assert page.status_code == 200, url
            case = page.context["case"]
            response = client.post(url, {
                "intent": "decide", "source": "annotation", "annotation": str(case.answers[0].annotation_id),
                "version": str(case.version),
            })
            assert response.status_code == 302, (dataset.subtask, response.context and response.context["problems"])
            url = response.url
            settled += 1
        assert settled == listed[dataset.name].open
        assert cases.dataset_counts(dataset.pk) == cases.CaseCounts(settled=settled)
    assert Adjudication.objects.count() == sum(c.open for c in listed.values())
