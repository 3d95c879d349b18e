import json

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.datasets.assigning import assign
from annotation.models import Annotation, Assignment, Dataset, Flag, GoldAnswer, Item
from tests.factories import make_dataset, make_user
from tests.item_pages import htmx_post
from tests.organizer.conftest import import_sample, sample_files, submit_answers

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    """A wsd dataset with gold, three annotators (k=2), some answers and two flags."""
    dataset = import_sample("wsd")
    annotators = [make_user(username=name) for name in ("ala", "bartek", "celina")]
    assign(dataset, annotators, 2)
    submit_answers(dataset, annotators[0], every=2)
    items = list(dataset.items.order_by("ordinal")[:2])
    Flag.objects.create(item=items[0], raised_by=annotators[1], comment="Dwa znaczenia pasują <b>oba</b>")
    Flag.objects.create(item=items[1], raised_by=annotators[2], comment="Literówka")
    return dataset


def organizer_urls(dataset: Dataset) -> list[str]:
    return [
        reverse("organizer_datasets"),
        reverse("organizer_dataset", args=[dataset.pk]),
        reverse("organizer_import"),
        reverse("organizer_import_gold", args=[dataset.pk]),
        reverse("organizer_assign", args=[dataset.pk]),
        reverse("organizer_export", args=[dataset.pk, "ala"]),
        reverse("organizer_export", args=[dataset.pk, "ala"]) + "?download=1",
        reverse("organizer_exports", args=[dataset.pk]),
        reverse("organizer_exports", args=[dataset.pk]) + "?source=all",
        reverse("organizer_exports", args=[dataset.pk]) + "?source=annotator:ala&left_out=1",
    ]


def test_anonymous_users_are_sent_to_the_login_page(client, campaign):
    for url in organizer_urls(campaign):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("login")), url


@pytest.mark.parametrize("role", ["annotator", "adjudicator"])
def test_other_roles_are_forbidden(client, campaign, role):
    client.force_login(make_user(role))
    for url in organizer_urls(campaign):
        assert client.get(url).status_code == 403, url
    assert client.post(reverse("organizer_dataset", args=[campaign.pk]), {"action": "freeze"}).status_code == 403
    assert client.post(reverse("organizer_assign", args=[campaign.pk]), {"action": "assign"}).status_code == 403
    campaign.refresh_from_db()
    assert not campaign.frozen


def test_organizers_see_every_page(organizer_client, campaign):
    for url in organizer_urls(campaign):
        assert organizer_client.get(url).status_code == 200, url


def test_writes_need_the_csrf_token(organizer, campaign):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    response = client.post(reverse("organizer_dataset", args=[campaign.pk]), {"action": "freeze"})
    assert response.status_code == 403
    campaign.refresh_from_db()
    assert not campaign.frozen


def test_dataset_list_shows_counts(organizer_client, campaign):
    response = organizer_client.get(reverse("organizer_datasets"))
    listed = response.context["datasets"].get(pk=campaign.pk)
    assert listed.item_count == campaign.items.count()
    assert listed.gold_count == campaign.items.count()
    assert listed.assignment_count == 2 * campaign.items.count()
    assert listed.submitted_count == Annotation.objects.filter(status="submitted").count()
    assert listed.open_flag_count == 2
    assert campaign.name in response.content.decode()


def test_dataset_page_shows_progress_and_median_active_time(organizer_client, campaign):
    response = organizer_client.get(reverse("organizer_dataset", args=[campaign.pk]))
    progress = {row.username: row for row in response.context["progress"]}
    assert set(progress) == {"ala", "bartek", "celina"}
    ala = progress["ala"]
    assert ala.assigned == Assignment.objects.filter(dataset=campaign, annotator__username="ala").count()
    assert ala.submitted == (ala.assigned + 1) // 2
    # Every second item answered, taking 1 s, 3 s, 5 s, ...: n answers have a median of n s.
    assert ala.median_active_ms == 1000 * ala.submitted
    assert progress["bartek"].submitted == 0 and progress["bartek"].median_active_ms is None
    html = response.content.decode()
    assert f"{ala.submitted} / {ala.assigned}" in html
    assert "Dwa znaczenia pasują &lt;b&gt;oba&lt;/b&gt;" in html
    assert reverse("organizer_export", args=[campaign.pk, "ala"]) in html


def test_dataset_page_query_count_does_not_grow_with_the_dataset(organizer_client):
    def make_campaign(size: int, name: str) -> Dataset:
        records = [{"id": f"{name}-{n}", "sentence": f"Mam [[{n + 2}]] koty."} for n in range(size)]
        dataset = make_dataset("numerals", records, name=name)
        annotators = [make_user() for _ in range(3)]
        assign(dataset, annotators, 2)
        for item in dataset.items.all()[: size // 2]:
            Flag.objects.create(item=item, raised_by=annotators[0], comment="?")
            Annotation.objects.create(item=item, annotator=annotators[0], answer={"answer": "dwa"}, status="submitted")
        return dataset

    small, large = make_campaign(4, "small"), make_campaign(60, "large")
    organizer_client.get(reverse("organizer_dataset", args=[small.pk]))
    counts = []
    for dataset in (small, large):
        with CaptureQueriesContext(connection) as queries:
            assert organizer_client.get(reverse("organizer_dataset", args=[dataset.pk])).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_resolving_a_flag_with_htmx_returns_its_row(organizer_client, organizer, campaign):
    flag = Flag.objects.get(comment="Literówka")
    response = htmx_post(
        organizer_client,
        reverse("organizer_dataset", args=[campaign.pk]),
        {"action": "resolve", "flag": flag.pk, "note": "Poprawione w danych"},
    )
    assert response.status_code == 200
    assert f'id="flag-{flag.pk}"' in response.content.decode()
    assert "Poprawione w danych" in response.content.decode()
    flag.refresh_from_db()
    assert flag.resolved_by == organizer and flag.resolved_at is not None
    assert flag.resolution_note == "Poprawione w danych"


def test_a_flag_of_another_dataset_cannot_be_resolved_through_this_one(organizer_client, campaign):
    other = import_sample("coreference")
    flag = Flag.objects.create(item=other.items.first(), raised_by=make_user(), comment="x")
    response = organizer_client.post(
        reverse("organizer_dataset", args=[campaign.pk]), {"action": "resolve", "flag": flag.pk, "note": "n"}
    )
    assert response.status_code == 404
    flag.refresh_from_db()
    assert flag.resolved_at is None


def test_freeze_and_unfreeze(organizer_client, campaign):
    url = reverse("organizer_dataset", args=[campaign.pk])
    assert organizer_client.post(url, {"action": "freeze"}).status_code == 302
    campaign.refresh_from_db()
    assert campaign.frozen
    organizer_client.post(url, {"action": "unfreeze"})
    campaign.refresh_from_db()
    assert not campaign.frozen


def upload(path, name=None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name or path.name, path.read_bytes())


def test_upload_page_imports_a_dataset_with_gold(organizer_client, organizer):
    inputs, gold = sample_files("numerals")
    response = organizer_client.post(
        reverse("organizer_import"),
        {"name": "numerals-A", "subtask": "numerals", "inputs": upload(inputs), "gold": upload(gold)},
    )
    dataset = Dataset.objects.get(name="numerals-A")
    assert response.status_code == 302
    assert response.url == reverse("organizer_dataset", args=[dataset.pk])
    assert dataset.created_by == organizer
    assert dataset.source_filename == "dev.inputs.jsonl"
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == dataset.items.count() > 0


def test_upload_page_lists_every_problem_and_imports_nothing(organizer_client):
    inputs, _gold = sample_files("commas")
    lines = inputs.read_text(encoding="utf-8").splitlines()[:4]
    lines[1] = "{oops"
    lines[3] = json.dumps({"id": "z", "sentence_with_positions": "Bez znaczników."})
    bad = SimpleUploadedFile("zle.jsonl", ("\n".join(lines) + "\n").encode())
    response = organizer_client.post(
        reverse("organizer_import"), {"name": "c", "subtask": "commas", "inputs": bad}
    )
    assert response.status_code == 422  # refused, as on every page and the API
    problems = [(problem.file, problem.line, problem.field) for problem in response.context["problems"]]
    assert problems == [("zle.jsonl", 2, "json"), ("zle.jsonl", 4, "sentence_with_positions")]
    html = response.content.decode()
    assert "2 problems; nothing was changed" in html
    assert "<td>zle.jsonl</td><td>4</td>" in html
    assert Dataset.objects.count() == Item.objects.count() == 0


def test_upload_page_refuses_an_existing_name(organizer_client, campaign):
    inputs, _gold = sample_files("wsd")
    response = organizer_client.post(
        reverse("organizer_import"), {"name": campaign.name, "subtask": "wsd", "inputs": upload(inputs)}
    )
    assert response.status_code == 422
    assert "exists already" in response.content.decode()
    assert Dataset.objects.count() == 1


def test_gold_page_imports_gold_later(organizer_client):
    dataset = import_sample("morphosyntax", with_gold=False)
    _inputs, gold = sample_files("morphosyntax")
    url = reverse("organizer_import_gold", args=[dataset.pk])
    response = organizer_client.post(url, {"gold": upload(gold)})
    assert response.status_code == 302
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == dataset.items.count()
    # The same file again adds nothing and changes nothing.
    response = organizer_client.post(url, {"gold": upload(gold)}, follow=True)
    assert f"already there and unchanged: {dataset.items.count()}" in response.content.decode()
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == dataset.items.count()


def test_assign_page_assigns_and_releases(organizer_client):
    dataset = import_sample("coreference")
    for name in ("ala", "bartek", "celina"):
        make_user(username=name)
    url = reverse("organizer_assign", args=[dataset.pk])
    choices = organizer_client.get(url).context["assign_form"].fields["annotators"].queryset
    assert [user.username for user in choices] == ["ala", "bartek", "celina"]

    annotators = [User.objects.get(username=name).pk for name in ("ala", "bartek", "celina")]
    response = organizer_client.post(url, {"action": "assign", "annotators": annotators, "per_item": 2})
    assert response.status_code == 302
    assert Assignment.objects.filter(dataset=dataset).count() == 2 * dataset.items.count()

    response = organizer_client.post(url, {"action": "release", "departed": annotators[1]})
    assert response.status_code == 302
    assert not Assignment.objects.filter(dataset=dataset, annotator_id=annotators[1]).exists()
    assert Assignment.objects.filter(dataset=dataset).count() == 2 * dataset.items.count()


def test_assign_page_refuses_an_organizer_who_is_also_an_annotator(organizer_client, organizer):
    dataset = import_sample("coreference")
    organizer.groups.add(Group.objects.get(name="annotator"))
    response = organizer_client.post(
        reverse("organizer_assign", args=[dataset.pk]),
        {"action": "assign", "annotators": [organizer.pk], "per_item": 1},
    )
    assert response.status_code == 422
    assert "olga can see the gold" in response.content.decode()
    assert Assignment.objects.count() == 0


def test_export_page_lists_unanswered_and_downloads_the_submission(organizer_client, campaign):
    url = reverse("organizer_export", args=[campaign.pk, "ala"])
    page = organizer_client.get(url)
    submission = page.context["submission"]
    submitted = Annotation.objects.filter(annotator__username="ala", status="submitted").count()
    assert len(submission.lines) == submitted
    assert len(submission.unanswered) == Assignment.objects.filter(annotator__username="ala").count() - submitted
    html = page.content.decode()
    # The unanswered are counted, not listed, and downloadable as a list.
    assert submission.unanswered[0] not in html
    assert f"{len(submission.unanswered)} assigned items without a submitted answer" in html
    listed = organizer_client.get(url + "?download=unanswered")
    assert listed["Content-Disposition"] == f'attachment; filename="{submission.unanswered_filename}"'
    assert listed.content.decode().splitlines() == submission.unanswered

    download = organizer_client.get(url + "?download=1")
    assert download["Content-Disposition"] == f'attachment; filename="{submission.filename}"'
    lines = [json.loads(line) for line in download.content.decode().splitlines()]
    assert lines == submission.lines


def test_an_export_without_answers_says_so_instead_of_downloading_an_empty_file(organizer_client, campaign):
    Annotation.objects.filter(annotator__username="ala").update(status="draft")
    url = reverse("organizer_export", args=[campaign.pk, "ala"])
    page = organizer_client.get(url + "?download=1")
    assert page.status_code == 200 and "Content-Disposition" not in page
    html = page.content.decode()
    assert "nothing to export" in html and 'href="?download=1"' not in html


def test_export_and_flags_are_named_apart_on_the_dataset_page(organizer_client, campaign):
    html = organizer_client.get(reverse("organizer_dataset", args=[campaign.pk])).content.decode()
    assert "Answers export" in html and "Problem reports" in html and ">Submission<" not in html


def test_export_page_shows_problems_of_an_invalid_answer(organizer_client, campaign):
    annotation = Annotation.objects.filter(annotator__username="ala").first()
    annotation.answer = {"answer": "E"}
    annotation.save()
    url = reverse("organizer_export", args=[campaign.pk, "ala"])
    page = organizer_client.get(url)
    assert page.status_code == 409
    assert "answer" in page.content.decode()
    assert organizer_client.get(url + "?download=1").status_code == 409


def test_dataset_list_query_count_does_not_grow_with_the_datasets(organizer_client):
    def page_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert organizer_client.get(reverse("organizer_datasets")).status_code == 200
        return len(queries)

    import_sample("wsd")
    one = page_queries()
    import_sample("coreference")
    import_sample("numerals")
    assert page_queries() == one
