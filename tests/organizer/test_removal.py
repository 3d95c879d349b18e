"""Mistakes that can be removed: a dataset, a pool or a model submission deleted while nothing
depends on it, archived (kept, hidden, out of campaigns, restorable) once answers exist, after
a confirmation naming what goes; every deletion and archiving recorded and shown on the
dataset's page; the commands refuse and allow the same."""

import json

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from annotation.adjudicate.selectors import adjudicator_datasets
from annotation.annotate.queue import datasets_with_work, item_page
from annotation.annotate.services import save_answer
from annotation.core.errors import DatasetFrozen
from annotation.core.files import SourceFile
from annotation.datasets import removing
from annotation.datasets.assigning import assign
from annotation.models import Annotation, Assignment, Dataset, Item, ModelSubmission, RemovalRecord
from annotation.results.forms import CampaignForm
from annotation.results.services import create_campaign, upload_model_submission
from annotation.training.services import import_pool
from tests.annotate.conftest import wsd_records
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


def jsonl(records) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()


@pytest.fixture
def dataset():
    return make_dataset("wsd", wsd_records(12), [{"id": f"wsd-{n}", "answer": "A"} for n in range(1, 13)], name="test-A")


def pl(client, url, data=None, **options):
    if data is None:
        return client.get(url, HTTP_ACCEPT_LANGUAGE="pl", **options)
    return client.post(url, data, HTTP_ACCEPT_LANGUAGE="pl", **options)


def submit(item, annotator):
    Annotation.objects.create(item=item, annotator=annotator, answer={"answer": "A"},
                              status=Annotation.Status.SUBMITTED, submitted_at=timezone.now())


def test_a_dataset_nothing_depends_on_is_deleted_after_a_confirmation_naming_what_goes(organizer_client, organizer,
                                                                                       dataset):
    assign(dataset, [make_user("annotator")], 1)
    url = reverse("organizer_removal", args=[dataset.pk])
    page = pl(organizer_client, url).content.decode()
    assert "Usunięcie usuwa też:" in page
    assert "<li>pozycje: 12</li>" in page and "<li>odpowiedzi z klucza: 12</li>" in page
    assert "<li>przydziały: 12</li>" in page
    response = organizer_client.post(url, {"action": "delete"})
    assert response.status_code == 302
    assert not Dataset.objects.filter(pk=dataset.pk).exists() and not Item.objects.exists()
    (done,) = RemovalRecord.objects.all()
    assert (done.dataset, done.dataset_name, done.kind, done.action, done.by) == (None, "test-A", "dataset", "deleted",
                                                                                 organizer)
    assert done.counts == {"items": 12, "gold": 12, "assignments": 12, "flags": 0, "pools": 0,
                           "model_submissions": 0, "training_rounds": 0}
    listed = pl(organizer_client, reverse("organizer_datasets") + "?archived=1").content.decode()
    assert "Usunięte zbiory" in listed and "<code>test-A</code>" in listed and "olga" in listed


def test_a_dataset_with_answers_is_archived_not_deleted_hidden_and_restorable(organizer_client, organizer, dataset):
    annotator = make_user("annotator")
    assign(dataset, [annotator], 1)
    submit(dataset.items.get(external_id="wsd-1"), annotator)
    campaign = create_campaign(name="kampania", datasets=[dataset])
    url = reverse("organizer_removal", args=[dataset.pk])
    page = pl(organizer_client, url).content.decode()
    assert "nie można tego usunąć: zarchiwizuj" in page and 'value="delete"' not in page
    assert "Opuszcza kampanie: kampania." in page

    # A deletion posted anyway (an old confirmation page) is refused and changes nothing.
    response = pl(organizer_client, url, {"action": "delete"})
    assert response.status_code == 422
    assert "zawiera czyjąś pracę (odpowiedzi: 1, odpowiedzi treningowe: 0, rozstrzygnięcia: 0)" in (
        response.content.decode())
    assert Dataset.objects.filter(pk=dataset.pk).exists() and not RemovalRecord.objects.exists()

    assert pl(organizer_client, url, {"action": "archive"}).status_code == 302
    dataset.refresh_from_db()
    assert (dataset.archived_by, Annotation.objects.count()) == (organizer, 1)
    assert list(campaign.datasets.all()) == []
    assert list(pl(organizer_client, reverse("organizer_datasets")).context["datasets"]) == []
    archived = pl(organizer_client, reverse("organizer_datasets") + "?archived=1")
    assert [listed.name for listed in archived.context["datasets"]] == ["test-A"]
    assert datasets_with_work(annotator) == []
    assert dataset not in CampaignForm().fields["datasets"].queryset
    page = pl(organizer_client, reverse("organizer_dataset", args=[dataset.pk])).content.decode()
    assert "Zarchiwizowany przez olga" in page
    assert "zarchiwizowane" in page and "opuszczone kampanie: 1" in page

    assert pl(organizer_client, url, {"action": "restore"}).status_code == 302
    assert [row.dataset.name for row in datasets_with_work(annotator)] == ["test-A"]
    assert [(r.action, r.by) for r in RemovalRecord.objects.order_by("pk")] == [
        ("archived", organizer), ("restored", organizer)]


def test_an_archived_dataset_leaves_the_adjudicators_list(dataset):
    annotators = [make_user("annotator"), make_user("annotator")]
    assign(dataset, annotators, 2)
    item = dataset.items.get(external_id="wsd-1")
    for annotator, label in zip(annotators, "AB"):
        Annotation.objects.create(item=item, annotator=annotator, answer={"answer": label},
                                  status=Annotation.Status.SUBMITTED, submitted_at=timezone.now(),
                                  normalised_answer=json.dumps({"answer": label}))
    adjudicator = make_user("adjudicator")
    assert [entry.dataset for entry in adjudicator_datasets(adjudicator)] == [dataset]
    removing.archive(dataset, by=None)
    assert adjudicator_datasets(adjudicator) == []


def test_a_pool_is_deleted_from_the_training_page_and_recorded_on_the_dataset_page(organizer_client, dataset):
    records = [{**record, "id": f"t-{n}"} for n, record in enumerate(wsd_records(23)[20:], 1)]
    pool = import_pool(kind="training", dataset=dataset, subtask="wsd", name=None,
                       inputs=SourceFile("t.jsonl", jsonl(records)),
                       gold=SourceFile("t.gold.jsonl", jsonl({"id": r["id"], "answer": "B"} for r in records)))
    training = pl(organizer_client, reverse("organizer_training", args=[dataset.pk])).content.decode()
    assert reverse("organizer_removal", args=[pool.pk]) in training
    response = pl(organizer_client, reverse("organizer_removal", args=[pool.pk]), {"action": "delete"})
    assert response.url == reverse("organizer_training", args=[dataset.pk])
    page = pl(organizer_client, reverse("organizer_dataset", args=[dataset.pk])).content.decode()
    assert "Usunięte i zarchiwizowane" in page
    assert "pula treningowa <code>test-A.training</code>" in page and "pozycje: 3" in page


def test_archiving_a_control_pool_takes_its_unanswered_positions_out_of_the_queues(dataset):
    records = [{**record, "id": f"c-{n}"} for n, record in enumerate(wsd_records(24)[20:], 1)]
    pool = import_pool(kind="control", dataset=dataset, subtask="wsd", name=None,
                       inputs=SourceFile("c.jsonl", jsonl(records)),
                       gold=SourceFile("c.gold.jsonl", jsonl({"id": r["id"], "answer": "C"} for r in records)))
    annotator = make_user("annotator")
    assign(dataset, [annotator], 1)
    for position, item in enumerate(pool.items.order_by("ordinal"), 100):
        Assignment.objects.create(dataset=dataset, item=item, annotator=annotator, position=position)
    submit(pool.items.get(external_id="c-1"), annotator)
    plan = removing.removal(pool)
    assert (plan.deletable, plan.answers, plan.unanswered_control) == (False, 1, 3)
    removing.archive(pool, by=None)
    assert set(Assignment.objects.filter(item__dataset=pool).values_list("item__external_id", flat=True)) == {"c-1"}
    assert Assignment.objects.filter(item__dataset=dataset).count() == 12


def test_a_model_submission_is_deleted_after_a_confirmation_and_recorded(organizer_client, organizer, dataset):
    lines = jsonl({"id": f"wsd-{n}", "answer": "B"} for n in range(1, 13))
    model = upload_model_submission(dataset=dataset, name="gpt-x", submission=SourceFile("m.jsonl", lines))
    page = pl(organizer_client, reverse("organizer_dataset", args=[dataset.pk])).content.decode()
    url = reverse("organizer_model_removal", args=[dataset.pk, model.pk])
    assert url in page
    assert "Usuń model gpt-x ze zbioru test-A" in pl(organizer_client, url).content.decode()
    assert ModelSubmission.objects.exists()
    response = pl(organizer_client, url, {}, follow=True)
    assert not ModelSubmission.objects.exists()
    assert "zgłoszenie modelu <code>gpt-x</code>" in response.content.decode()
    assert RemovalRecord.objects.get().by == organizer


def test_the_commands_refuse_and_allow_what_the_pages_do(dataset, organizer, capsys):
    annotator = make_user("annotator")
    assign(dataset, [annotator], 1)
    call_command("remove_dataset", "test-A")
    assert "answers 0, training answers 0, adjudications 0; items 12" in capsys.readouterr().out
    submit(dataset.items.get(external_id="wsd-2"), annotator)
    with pytest.raises(CommandError) as refused:
        call_command("remove_dataset", "test-A", "--delete")
    assert refused.value.returncode == 1
    assert "holds work (answers: 1, training answers: 0, adjudications: 0)" in capsys.readouterr().err
    call_command("remove_dataset", "test-A", "--archive", "--by", "olga")
    with pytest.raises(CommandError):
        call_command("remove_dataset", "test-A", "--archive")
    call_command("remove_dataset", "test-A", "--restore")
    assert [(r.action, r.by) for r in RemovalRecord.objects.order_by("pk")] == [("archived", organizer),
                                                                                ("restored", None)]
    upload_model_submission(dataset=dataset, name="m", submission=SourceFile(
        "m.jsonl", jsonl({"id": f"wsd-{n}", "answer": "B"} for n in range(1, 13))))
    with pytest.raises(CommandError) as unknown:
        call_command("delete_model_submission", "test-A", "other")
    assert unknown.value.returncode == 2
    call_command("delete_model_submission", "test-A", "m", "--by", "olga")
    assert not ModelSubmission.objects.exists()


def test_the_schema_keeps_the_records_and_the_archive_honest(dataset):
    with pytest.raises(IntegrityError), transaction.atomic():
        RemovalRecord.objects.create(dataset=dataset, dataset_name="test-A", kind="model", name="m", action="archived")
    with pytest.raises(IntegrityError), transaction.atomic():
        Dataset.objects.filter(pk=dataset.pk).update(archived_by=make_user("organizer"))


def test_organizers_remove_on_the_removal_page_not_in_the_admin(organizer, rf):
    """The admin's delete would bypass the check of what depends on it and the record."""
    request = rf.get("/admin/")
    request.user = organizer
    assert not admin.site.get_model_admin(Dataset).has_delete_permission(request)


def test_an_archived_dataset_takes_no_answers_until_restored(dataset):
    annotator = make_user("annotator")
    assign(dataset, [annotator], 1)
    removing.archive(dataset, by=None)
    page = item_page(annotator, dataset.pk, 1)
    with pytest.raises(DatasetFrozen):
        save_answer(page=page, answer={"answer": "A"}, submit=True, based_on_version=0)
    removing.restore(dataset, by=None)
    save_answer(page=item_page(annotator, dataset.pk, 1), answer={"answer": "A"}, submit=True, based_on_version=0)
    assert Annotation.objects.get(annotator=annotator).status == Annotation.Status.SUBMITTED


def test_an_archived_pool_is_listed_on_the_training_page_and_restored_from_there(organizer_client, dataset):
    records = [{**record, "id": f"t-{n}"} for n, record in enumerate(wsd_records(23)[20:], 1)]
    pool = import_pool(kind="training", dataset=dataset, subtask="wsd", name=None,
                       inputs=SourceFile("t.jsonl", jsonl(records)),
                       gold=SourceFile("t.gold.jsonl", jsonl({"id": r["id"], "answer": "B"} for r in records)))
    url = reverse("organizer_removal", args=[pool.pk])
    assert "Zarchiwizowana pula zostaje ze wszystkimi odpowiedziami" in pl(organizer_client, url).content.decode()
    pl(organizer_client, url, {"action": "archive"})
    training = pl(organizer_client, reverse("organizer_training", args=[dataset.pk])).content.decode()
    assert "Zarchiwizowana pula test-A.training (trening," in training
    assert "brak: anotatorzy od razu zaczynają pozycje" in training  # no serving training pool
    assert "Przywrócenie wraca go na listy i do użytku" in pl(organizer_client, url).content.decode()
    assert pl(organizer_client, url, {"action": "restore"}).url == reverse("organizer_training", args=[dataset.pk])
    pool.refresh_from_db()
    assert pool.archived_at is None
    assert [(r.kind, r.action) for r in RemovalRecord.objects.order_by("pk")] == [("training", "archived"),
                                                                                   ("training", "restored")]
