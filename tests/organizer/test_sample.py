"""A dataset's seeded sample: the scorer's draw over its items, the only items assigned."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.core.errors import Refused
from annotation.datasets.assigning import assign
from annotation.datasets.sampling import preview_sample, sample_ids, served_items, set_sample
from annotation.models import Annotation, Assignment, Dataset
from annotation.results.report import dataset_report
from scoring.sampling import draw_sample
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

RECORDS = [
    {"id": f"c{index:02d}", "sentence_with_positions": "Ala [1] ma [2] kota.", "genre": "news" if index % 3 else "web"}
    for index in range(30)
]


def commas(name="commas-sample"):
    return make_dataset("commas", RECORDS, name=name)


def test_the_sample_is_the_scorers_draw_ranked_in_the_permutations_order():
    dataset = commas()
    drawn = set_sample(dataset, 10, 2026, "genre")
    assert drawn == draw_sample(RECORDS, 10, 2026, "genre")
    assert [(stratum.value, stratum.size, stratum.sample_size) for stratum in drawn.strata] == [
        ('"news"', 20, 7), ('"web"', 10, 3)]
    ranked = list(served_items(dataset).order_by("sample_rank").values_list("external_id", flat=True))
    assert ranked == drawn.order
    assert sample_ids(dataset) == drawn.ids == sorted(drawn.ids)
    dataset.refresh_from_db()
    assert (dataset.sample_size, dataset.sample_seed, dataset.sample_field) == (10, 2026, "genre")


def test_only_the_sample_is_assigned():
    dataset = commas()
    drawn = set_sample(dataset, 12, 5)
    annotators = [make_user() for _ in range(3)]
    result = assign(dataset, annotators, 2)
    assert result.total_added == 24
    assigned = set(Assignment.objects.filter(dataset=dataset).values_list("item__external_id", flat=True))
    assert assigned == set(drawn.ids)


def test_without_a_sample_every_item_is_served():
    dataset = commas()
    assert sample_ids(dataset) == sorted(record["id"] for record in RECORDS)
    set_sample(dataset, 5, 1)
    set_sample(dataset, None)
    dataset.refresh_from_db()
    assert (dataset.sample_size, dataset.sample_seed, dataset.sample_field) == (None, None, "")
    assert served_items(dataset).count() == 30


def test_a_sample_larger_than_the_dataset_or_after_assignment_is_refused_and_changes_nothing():
    dataset = commas()
    with pytest.raises(Refused, match="a sample of 31 items asked of commas-sample, which has 30"):
        set_sample(dataset, 31, 0)
    assert Dataset.objects.get(pk=dataset.pk).sample_size is None
    set_sample(dataset, 6, 0)
    assign(dataset, [make_user()], 1)
    with pytest.raises(Refused, match="has items assigned already"):
        set_sample(dataset, 8, 0)
    assert len(sample_ids(Dataset.objects.get(pk=dataset.pk))) == 6


def test_the_preview_changes_nothing():
    dataset = commas()
    assert len(preview_sample(dataset, 4, 9).ids) == 4
    assert Dataset.objects.get(pk=dataset.pk).sample_size is None
    assert served_items(dataset).count() == 30


def run(*args):
    out = StringIO()
    call_command("sample", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_the_command_shows_the_allocation_sets_the_sample_and_prints_its_ids():
    dataset = commas()
    assert run(dataset.name, "--size", "10", "--seed", "2026", "--stratify", "genre", "--dry-run") == (
        'genre = "news": 7 of 20\ngenre = "web": 3 of 10\ncommas-sample: the sample would be 10 of 30 items\n')
    assert Dataset.objects.get(pk=dataset.pk).sample_size is None
    run(dataset.name, "--size", "10", "--seed", "2026", "--stratify", "genre")
    assert run(dataset.name, "--ids").splitlines() == draw_sample(RECORDS, 10, 2026, "genre").ids
    with pytest.raises(CommandError, match="1 problem; the sample is unchanged"):
        run(dataset.name, "--size", "40", "--seed", "1")
    with pytest.raises(CommandError, match="give --size n and --seed S"):
        run(dataset.name, "--size", "4")
    assert run(dataset.name, "--all") == "commas-sample: every item is given\n"
    assert Dataset.objects.get(pk=dataset.pk).sample_size is None


def test_the_page_previews_sets_downloads_and_refuses(organizer_client, client):
    dataset = commas()
    url = f"/organize/{dataset.pk}/sample/"
    page = organizer_client.get(url)
    assert page.status_code == 200 and "30" in page.content.decode()
    preview = organizer_client.post(url, {"action": "preview", "size": "10", "seed": "2026", "field": "genre"})
    text = preview.content.decode()
    assert preview.status_code == 200 and 'id="allocation"' in text
    assert "<code>&quot;news&quot;</code></td><td class=\"num\">20</td><td class=\"num\">7</td>" in text
    assert Dataset.objects.get(pk=dataset.pk).sample_size is None
    assert organizer_client.post(url, {"action": "set", "size": "10", "seed": "2026", "field": "genre"}).status_code == 302
    download = organizer_client.get(url + "?download=ids")
    assert download["Content-Disposition"] == 'attachment; filename="commas-sample.sample.txt"'
    assert download.content.decode().splitlines() == draw_sample(RECORDS, 10, 2026, "genre").ids
    too_large = organizer_client.post(url, {"action": "set", "size": "31", "seed": "0"})
    assert too_large.status_code == 422 and "which has 30" in too_large.content.decode()
    assert len(sample_ids(dataset)) == 10
    client.force_login(make_user())
    assert client.get(url).status_code in (302, 403)
    assert client.post(url, {"action": "all"}).status_code in (302, 403)
    assert Dataset.objects.get(pk=dataset.pk).sample_size == 10


def test_the_api_reads_previews_sets_and_refuses(organizer_client, client):
    dataset = commas()
    url = f"/api/datasets/{dataset.pk}/sample/"
    assert organizer_client.get(url).json() == {"size": None, "seed": None, "field": "",
                                                "ids": sorted(record["id"] for record in RECORDS), "strata": []}
    draw = draw_sample(RECORDS, 10, 2026, "genre")
    allocation = [{"value": '"news"', "size": 20, "sample_size": 7}, {"value": '"web"', "size": 10, "sample_size": 3}]
    body = {"size": 10, "seed": 2026, "field": "genre"}
    dry = organizer_client.put(url, {**body, "dry_run": True}, content_type="application/json")
    assert dry.json() == {**body, "ids": draw.ids, "strata": allocation}
    assert Dataset.objects.get(pk=dataset.pk).sample_size is None
    assert organizer_client.put(url, body, content_type="application/json").json() == {
        **body, "ids": draw.ids, "strata": allocation}
    assert organizer_client.get(url).json() == {**body, "ids": draw.ids, "strata": []}
    no_seed = organizer_client.put(url, {"size": 3}, content_type="application/json")
    assert (no_seed.status_code, no_seed.json()["problems"]) == (400, ["seed: a sample needs a seed"])
    assign(dataset, [make_user()], 1)
    late = organizer_client.put(url, {"size": None}, content_type="application/json")
    assert late.status_code == 422 and "has items assigned already" in late.json()["problems"][0]
    assert organizer_client.get(url).json()["size"] == 10
    client.force_login(make_user())
    assert client.get(url).status_code == 403


def test_the_report_names_the_sample_and_its_complete_items_lie_within_it():
    dataset = make_dataset("commas", RECORDS, gold=[{"id": record["id"], "commas": [1], "optional": []}
                                                    for record in RECORDS], name="commas-reported")
    drawn = set_sample(dataset, 6, 3)
    annotators = [make_user() for _ in range(2)]
    assign(dataset, annotators, 2)
    for assignment in Assignment.objects.filter(dataset=dataset).select_related("item"):
        Annotation.objects.create(item=assignment.item, annotator=assignment.annotator,
                                  answer={"commas": [1], "optional": []}, status=Annotation.Status.SUBMITTED)
    report = dataset_report(Dataset.objects.get(pk=dataset.pk), resamples=0, test_rounds=0)
    assert report["sample"] == {"size": 6, "seed": 3, "field": "", "ids": drawn.ids,
                                "routing": False, "answers_per_item": None, "pilot_items": []}
    assert sorted(report["complete_items"]) == drawn.ids


def test_items_outside_the_sample_are_refused_by_the_page_and_the_api(client):
    dataset = commas()
    drawn = set_sample(dataset, 4, 8)
    annotator = make_user()
    assign(dataset, [annotator], 1)
    client.force_login(annotator)
    listed = client.get(f"/api/datasets/{dataset.pk}/items/").json()
    assert sorted(item["payload"]["id"] for item in listed["results"]) == drawn.ids
    assert client.get(f"/annotate/{dataset.pk}/4/").status_code == 200
    assert client.get(f"/annotate/{dataset.pk}/5/").status_code == 404
    outside = dataset.items.exclude(external_id__in=drawn.ids).first()
    refused = client.post("/api/annotations/", {"item": outside.pk, "answer": {"commas": [1], "optional": []},
                                                "status": "submitted", "version": 0}, content_type="application/json")
    assert refused.status_code == 404
    assert not Annotation.objects.filter(item=outside).exists()
