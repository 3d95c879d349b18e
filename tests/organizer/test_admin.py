import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from annotation.datasets.assigning import assign
from annotation.models import Annotation, AnnotationRevision, Flag
from tests.factories import make_user
from tests.organizer.conftest import import_sample, submit_answers

pytestmark = pytest.mark.django_db

MODELS = ["dataset", "item", "goldanswer", "assignment", "annotation", "annotationrevision", "flag"]


@pytest.fixture
def campaign():
    dataset = import_sample("wsd")
    annotator = make_user(username="ala")
    assign(dataset, [annotator], 1)
    annotation = submit_answers(dataset, annotator, every=5)[0]
    AnnotationRevision.objects.create(annotation=annotation, version=1, answer=annotation.answer, status="submitted")
    Flag.objects.create(item=annotation.item, raised_by=annotator, comment="?")
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
