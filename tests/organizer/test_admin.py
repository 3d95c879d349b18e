import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone, translation

from annotation.core.admin import OrganizerOnlyMixin
from annotation.datasets.assigning import assign
from annotation.datasets.routing import set_routing
from annotation.models import (
    Adjudication,
    AdjudicationClaim,
    AdjudicationRevision,
    Annotation,
    AnnotationRevision,
    Campaign,
    CampaignProtocol,
    Dataset,
    Explanation,
    Flag,
    GoldAnswer,
    GoldAuditDecision,
    GoldVersion,
    Item,
    KeyPreference,
    ModelSubmission,
    Pseudonym,
    RemovalRecord,
    RoutedAnnotator,
    RoutedItem,
    RoutingOrder,
    StoredReport,
    StoredReportPart,
    Study,
    StudyDataset,
    StudyParticipant,
    StudyRefusal,
    TrainingAnswer,
    TrainingRound,
)
from tests.factories import make_dataset, make_user
from tests.organizer.conftest import import_sample, submit_answers
from tests.studies.panel import make_study, panel_id

pytestmark = pytest.mark.django_db

APP_MODELS = list(apps.get_app_config("annotation").get_models())
MODELS = [model._meta.model_name for model in APP_MODELS]
# History: what the campaign's flows recorded (items and gold imported, answers given, decisions
# taken, models' files uploaded, what was deleted or archived). Organizers read it; nobody adds or changes it in the admin;
# only a superuser deletes it.
HISTORY = [
    Item, GoldAnswer, Annotation, AnnotationRevision, Adjudication, AdjudicationRevision,
    TrainingRound, TrainingAnswer, ModelSubmission, RemovalRecord, Pseudonym, RoutedAnnotator, RoutedItem, RoutingOrder,
    GoldVersion, GoldAuditDecision, Study, StudyDataset, StudyParticipant, StudyRefusal,
]


@pytest.fixture
def campaign():
    """A dataset with a record of every model of the app: answers, a flag, an adjudication and
    a claim, a gold version with its audit decision, a training pool with a round, an answer and an explanation, a model's submission,
    a campaign and a computed report."""
    dataset = import_sample("wsd")
    annotator = make_user(username="ala")
    assign(dataset, [annotator], 1)
    annotation = submit_answers(dataset, annotator, every=5)[0]
    AnnotationRevision.objects.create(annotation=annotation, version=1, answer=annotation.answer, status="submitted")
    Flag.objects.create(item=annotation.item, raised_by=annotator, comment="?")
    adjudicator = make_user("adjudicator", username="adam")
    adjudication = Adjudication.objects.create(
        item=annotation.item, answer=annotation.answer, source="annotation", source_annotation=annotation,
        adjudicator=adjudicator, decided_at=annotation.updated_at,
    )
    AdjudicationRevision.objects.create(
        adjudication=adjudication, version=1, answer=adjudication.answer, source="annotation", adjudicator=adjudicator,
    )
    AdjudicationClaim.objects.create(
        item=dataset.items.order_by("ordinal")[1], adjudicator=adjudicator, expires_at=timezone.now() + timedelta(minutes=15),
    )
    record = {"id": "train-a", "reference_sentence": "x", "candidates": {}}
    pool = make_dataset("wsd", [record], name="sample-wsd-training")
    Dataset.objects.filter(pk=pool.pk).update(pool_of=dataset, pool_kind=Dataset.PoolKind.TRAINING)
    training_item = pool.items.get()
    Explanation.objects.create(item=training_item, text="a reason")
    training_round = TrainingRound.objects.create(
        dataset=dataset, annotator=annotator, attempt=1, finished_at=timezone.now(), score=1.0,
    )
    TrainingAnswer.objects.create(round=training_round, item=training_item, answer={"answer": "a"}, correctness=1.0)
    ModelSubmission.objects.create(dataset=dataset, name="a-model", filename="a-model.jsonl", data=b"{}\n" * 1000)
    a_campaign = Campaign.objects.create(name="a-campaign")
    a_campaign.datasets.set([dataset])
    Pseudonym.objects.create(campaign=a_campaign, user=annotator, number=1)
    CampaignProtocol.objects.create(campaign=a_campaign, recruitment="a call", pay_amount=40, pay_basis="hour")
    RemovalRecord.objects.create(dataset=dataset, dataset_name=dataset.name, kind="model", name="an-old-model",
                                 action="deleted", by=adjudicator, counts={})
    stored = StoredReport.objects.create(dataset=dataset, version="a" * 64, seed=0, status="done",
                                         computed_at=timezone.now(), report={"dataset": dataset.name})
    StoredReportPart.objects.create(stored=stored, kind="file", key="csv", content="a,b\n")
    KeyPreference.objects.create(user=annotator, single_keys=False)
    routed = make_dataset("wsd", [{"id": "routed-a", "reference_sentence": "x", "candidates": {}}], name="sample-wsd-routed")
    set_routing(routed, routing=True, answers_per_item=1)
    assign(routed, [annotator], 1)
    version = GoldVersion.objects.create(item=annotation.item, version=2, payload=annotation.item.gold.payload,
                                         reason="a reason", author=adjudicator)
    GoldAuditDecision.objects.create(item=annotation.item, kind="corrected", note="a note", gold_version=version,
                                     decided_by=adjudicator)
    study = make_study((routed, 1), name="a-study")
    participant = StudyParticipant.objects.create(study=study, user=make_user(), panel_id=panel_id(1),
                                                  entered_at=timezone.now(), deadline=timezone.now())
    StudyRefusal.objects.create(study=study, panel_id=participant.panel_id, reason="other_session")
    return dataset


def changelist(model: str) -> str:
    return reverse(f"admin:annotation_{model}_changelist")


def test_organizers_get_every_model_with_search_and_filters(client, campaign):
    client.force_login(make_user("organizer"))
    for model in MODELS:
        response = client.get(changelist(model), {"q": "a"})
        assert response.status_code == 200, model
        assert response.context["cl"].search_fields, model
        assert response.context["cl"].has_filters, model
    annotation = Annotation.objects.first()
    assert client.get(reverse("admin:annotation_annotation_change", args=[annotation.pk])).status_code == 200
    assert client.get(reverse("admin:auth_user_changelist")).status_code == 200


def test_gold_and_everything_else_is_closed_to_staff_who_are_not_organizers(client, campaign):
    staff = make_user("adjudicator")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    for model in MODELS:
        assert client.get(changelist(model)).status_code == 403, model
    assert "sample-wsd" not in client.get(reverse("admin:index")).content.decode()


def test_annotators_cannot_reach_the_admin(client, campaign):
    client.force_login(User.objects.get(username="ala"))
    response = client.get(changelist("goldanswer"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


def test_organizers_cannot_make_anyone_superuser(client):
    organizer = make_user("organizer")
    client.force_login(organizer)
    annotator = make_user()
    response = client.get(reverse("admin:auth_user_change", args=[annotator.pk]))
    assert "is_superuser" in response.context["adminform"].readonly_fields


# Every model of the app


def make_superuser() -> User:
    return User.objects.create_superuser("root", "root@example.org", "pass-Polis-123")


def request_of(user: User):
    request = RequestFactory().get("/admin/")
    request.user = user
    return request


def test_every_model_of_the_app_is_in_the_admin_for_organizers_only():
    assert len(APP_MODELS) == 30
    for model in APP_MODELS:
        assert admin.site.is_registered(model), model.__name__
        assert isinstance(admin.site.get_model_admin(model), OrganizerOnlyMixin), model.__name__


def test_organizers_get_every_changelist_with_its_records_and_every_record_page(client, campaign):
    client.force_login(make_user("organizer"))
    for model in APP_MODELS:
        name = model._meta.model_name
        response = client.get(changelist(name))
        assert response.status_code == 200, name
        assert response.context["cl"].result_count >= 1, name
        for query in ("a", "sample", "ala"):
            assert client.get(changelist(name), {"q": query}).status_code == 200, (name, query)
        record = model.objects.first()
        assert client.get(reverse(f"admin:annotation_{name}_change", args=[record.pk])).status_code == 200, name


def test_history_is_read_only_for_organizers_and_deleted_by_superusers_only(campaign):
    organizer, superuser = request_of(make_user("organizer")), request_of(make_superuser())
    for model in HISTORY:
        model_admin, record = admin.site.get_model_admin(model), model.objects.first()
        for request in (organizer, superuser):
            assert model_admin.has_view_permission(request, record), model.__name__
            assert not model_admin.has_add_permission(request), model.__name__
            assert not model_admin.has_change_permission(request), model.__name__
            assert not model_admin.has_change_permission(request, record), model.__name__
        assert not model_admin.has_delete_permission(organizer), model.__name__
        assert not model_admin.has_delete_permission(organizer, record), model.__name__
        assert model_admin.has_delete_permission(superuser, record), model.__name__


def test_history_pages_offer_organizers_no_add_change_or_delete(client, campaign):
    client.force_login(make_user("organizer"))
    for model in HISTORY:
        name, record = model._meta.model_name, model.objects.first()
        assert client.get(reverse(f"admin:annotation_{name}_add")).status_code == 403, name
        assert not client.get(reverse(f"admin:annotation_{name}_change", args=[record.pk])).context["has_change_permission"]
        assert client.get(reverse(f"admin:annotation_{name}_delete", args=[record.pk])).status_code == 403, name
    submission = ModelSubmission.objects.get()
    client.post(reverse("admin:annotation_modelsubmission_delete", args=[submission.pk]), {"post": "yes"})
    assert ModelSubmission.objects.filter(pk=submission.pk).exists()


def test_a_superuser_deletes_a_training_round_and_a_model_submission(client, campaign):
    client.force_login(make_superuser())
    for model in (TrainingRound, ModelSubmission):
        record = model.objects.get()
        response = client.post(reverse(f"admin:annotation_{model._meta.model_name}_delete", args=[record.pk]), {"post": "yes"})
        assert response.status_code == 302, model.__name__
        assert not model.objects.filter(pk=record.pk).exists(), model.__name__
    assert not TrainingAnswer.objects.exists()  # the round's answers with it


def test_what_organizers_may_edit_outside_history(campaign):
    organizer = request_of(make_user("organizer"))
    explanation, claim, campaign_record = Explanation.objects.get(), AdjudicationClaim.objects.get(), Campaign.objects.get()
    # An explanation's text is the organizer's; its item is chosen by the training page's checks.
    explanations = admin.site.get_model_admin(Explanation)
    assert not explanations.has_add_permission(organizer)
    assert explanations.has_change_permission(organizer, explanation)
    assert explanations.has_delete_permission(organizer, explanation)
    assert "item" in explanations.get_readonly_fields(organizer, explanation)
    # A claim is the adjudication page's; an organizer only releases it.
    claims = admin.site.get_model_admin(AdjudicationClaim)
    assert not claims.has_add_permission(organizer)
    assert not claims.has_change_permission(organizer, claim)
    assert claims.has_delete_permission(organizer, claim)
    # A campaign's protocol is the organizer's to state, here as on its page.
    protocols = admin.site.get_model_admin(CampaignProtocol)
    assert protocols.has_change_permission(organizer, CampaignProtocol.objects.get())
    campaigns = admin.site.get_model_admin(Campaign)
    assert campaigns.has_add_permission(organizer)
    assert campaigns.has_change_permission(organizer, campaign_record)
    assert campaigns.has_delete_permission(organizer, campaign_record)


def test_an_organizer_releases_a_claim_and_edits_an_explanation(client, campaign):
    client.force_login(make_user("organizer"))
    claim = AdjudicationClaim.objects.get()
    client.post(reverse("admin:annotation_adjudicationclaim_delete", args=[claim.pk]), {"post": "yes"})
    assert not AdjudicationClaim.objects.exists()
    explanation = Explanation.objects.get()
    response = client.post(reverse("admin:annotation_explanation_change", args=[explanation.pk]), {"text": "  Why.  "})
    assert response.status_code == 302
    explanation.refresh_from_db()
    assert explanation.text == "Why."


def test_a_campaign_made_in_the_admin_has_one_dataset_per_subtask(client, campaign):
    organizer = make_user("organizer")
    client.force_login(organizer)
    other_wsd = import_sample("wsd", name="other-wsd")
    commas = import_sample("commas")
    add = reverse("admin:annotation_campaign_add")
    response = client.post(add, {"name": "two-wsd", "datasets": [campaign.pk, other_wsd.pk], "human_source": "majority_filled"})
    assert response.status_code == 200
    assert "a campaign has one dataset per subtask" in response.content.decode()
    assert not Campaign.objects.filter(name="two-wsd").exists()
    response = client.post(add, {"name": "test-A", "datasets": [campaign.pk, commas.pk], "human_source": "adjudicated"})
    assert response.status_code == 302
    made = Campaign.objects.get(name="test-A")
    assert set(made.datasets.all()) == {campaign, commas} and made.created_by == organizer
    assert made.human_source == "adjudicated"
    change = reverse("admin:annotation_campaign_change", args=[made.pk])
    client.post(change, {"name": "test-A", "datasets": [other_wsd.pk, campaign.pk], "human_source": "majority"})
    assert set(Campaign.objects.get(pk=made.pk).datasets.all()) == {campaign, commas}


ENGLISH_WORDS = re.compile(r"\b(of|by|on|in|gold|flag|training|explanation|report|claimed|single keys|adjudication|object)\b")


def test_the_admin_speaks_polish_in_its_columns_and_records(client, campaign):
    """No column head left in English (a field without a verbose name shows its name, "CREATED
    BY") and no record named in English ("Explanation object (7)", "explanation of ...")."""
    for model in APP_MODELS:
        for field in model._meta.concrete_fields:
            if field.name not in ("id", "external_id"):
                with translation.override("en"):
                    english = str(field.verbose_name)
                with translation.override("pl"):
                    assert str(field.verbose_name) != english, (model.__name__, field.name)
        with translation.override("pl"):
            said = str(model.objects.first())
        assert not ENGLISH_WORDS.search(said), (model.__name__, said)
    client.force_login(make_user("organizer"))
    html = client.get(changelist("dataset"), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "utworzył(a)" in html.lower()
    assert "created by" not in html.lower()
    explanation = Explanation.objects.get()
    html = client.get(reverse("admin:annotation_explanation_changelist"), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert f"wyjaśnienie pozycji {explanation.item.external_id}" in html
    assert "Explanation object" not in html
