"""Organizers manage annotator and adjudicator accounts only: organizer, staff and superuser
accounts are a superuser's, on the accounts page and in the admin; history records are read
only in the admin and deleted by superusers only."""

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from annotation.datasets.assigning import assign
from annotation.models import Adjudication, AdjudicationRevision, Annotation, AnnotationRevision, Assignment, Flag, GoldAnswer
from tests.factories import make_dataset, make_user
from tests.organizer.conftest import import_sample, submit_answers

pytestmark = pytest.mark.django_db

URL = reverse("organizer_accounts")
ACTIONS = ("link", "deactivate", "activate", "release")


def make_superuser() -> User:
    return User.objects.create_superuser("root", "root@example.org", "pass-Polis-123")


def target(role: str) -> User:
    """An account of the role with an unanswered item, in a dataset where one more annotator
    could take it over."""
    user = make_superuser() if role == "superuser" else make_user(role, username=f"target-{role}")
    records = [{"id": f"w{n}", "reference_sentence": "x", "candidates": {}} for n in (1, 2)]
    dataset = make_dataset("wsd", records, name=f"d-{role}")
    first, second = dataset.items.order_by("ordinal")
    Assignment.objects.create(dataset=dataset, item=first, annotator=user, position=1)
    Assignment.objects.create(dataset=dataset, item=second, annotator=make_user(), position=1)
    return user


def post(client: Client, action: str, account: User):
    data = {"action": action, "user": account.pk}
    if action == "release":
        data["dataset"] = account.assignments.get().dataset_id
    return client.post(URL, data)


def state(account: User) -> tuple:
    account.refresh_from_db()
    return account.is_active, account.password, sorted(account.assignments.values_list("item_id", flat=True))


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("role", ["superuser", "organizer"])
def test_an_organizer_cannot_act_on_a_superuser_or_another_organizer(client, action, role):
    client.force_login(make_user("organizer", username="acting"))
    account = target(role)
    if action == "activate":
        User.objects.filter(pk=account.pk).update(is_active=False)
    before = state(account)
    response = post(client, action, account)
    assert response.status_code == 403
    page = response.content.decode()
    assert "/reset/" not in page and "password-links" not in page  # no one-time link
    assert "only a superuser can change that account" in page
    assert state(account) == before


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize(("acting", "role"), [
    ("organizer", "annotator"), ("organizer", "adjudicator"), ("superuser", "organizer"),
])
def test_allowed_actions_take_effect(client, action, acting, role):
    client.force_login(make_superuser() if acting == "superuser" else make_user("organizer", username="acting"))
    account = target(role)
    if action in ("activate", "release"):
        User.objects.filter(pk=account.pk).update(is_active=False)
    response = post(client, action, account)
    account.refresh_from_db()
    if action == "link":
        assert response.status_code == 200 and "/reset/" in response.content.decode()
    else:
        assert response.status_code == 302
        assert account.is_active == (action == "activate")
    if action == "release":
        assert not account.assignments.exists()


def test_the_page_offers_organizers_no_button_on_an_account_they_cannot_manage(client):
    client.force_login(make_user("organizer", username="acting"))
    both = make_user("organizer", username="both")
    both.groups.add(Group.objects.get_or_create(name="annotator")[0])  # listed among annotators too
    annotator = make_user("annotator", username="plain")
    page = client.get(URL).content.decode()
    row = page.split('data-account="both"')[1].split("</tr>")[0]
    assert 'value="deactivate"' not in row and 'value="link"' not in row
    row = page.split(f'data-account="{annotator.username}"')[1].split("</tr>")[0]
    assert 'value="deactivate"' in row and 'value="link"' in row


def test_the_assign_page_does_not_release_another_organizers_items(client):
    client.force_login(make_user("organizer", username="acting"))
    dataset = import_sample("wsd")
    other = make_user("annotator", username="other-organizer")
    annotator = make_user("annotator", username="ala")
    assign(dataset, [other, annotator], 1)
    other.groups.add(Group.objects.get_or_create(name="organizer")[0])  # made an organizer since
    User.objects.filter(pk=other.pk).update(is_staff=True)
    before = sorted(other.assignments.values_list("item_id", flat=True))
    response = client.post(
        reverse("organizer_assign", args=[dataset.pk]), {"action": "release", "departed": other.pk}
    )
    assert response.status_code == 403
    assert sorted(other.assignments.values_list("item_id", flat=True)) == before


# The admin


def user_pages(account: User) -> list[str]:
    return [
        reverse("admin:auth_user_change", args=[account.pk]),
        reverse("admin:auth_user_password_change", args=[account.pk]),
        reverse("admin:auth_user_delete", args=[account.pk]),
    ]


@pytest.mark.parametrize("role", ["superuser", "organizer"])
def test_in_the_admin_an_organizer_cannot_change_a_superuser_or_another_organizer(client, role):
    client.force_login(make_user("organizer", username="acting"))
    account = target(role)
    before = (account.password, list(account.groups.all()), account.is_active)
    change, password, delete = user_pages(account)
    response = client.get(change)
    assert response.status_code == 200 and not response.context["has_change_permission"]  # seen, read only
    assert client.get(password).status_code == 403
    assert client.get(delete).status_code == 403
    client.post(change, {"username": "taken", "groups": [], "is_active": ""})
    client.post(user_pages(account)[1], {"password1": "Taken-over-123", "password2": "Taken-over-123"})
    client.post(user_pages(account)[2], {"post": "yes"})
    client.post(reverse("admin:auth_user_changelist"), {"action": "delete_selected", "_selected_action": [account.pk], "post": "yes"})
    account.refresh_from_db()
    assert (account.password, list(account.groups.all()), account.is_active) == before


def test_in_the_admin_an_organizer_changes_annotators_but_gives_no_organizer_role(client):
    client.force_login(make_user("organizer", username="acting"))
    account = make_user("annotator", username="ala")
    for url in user_pages(account)[:2]:
        assert client.get(url).status_code == 200, url
    form = client.get(user_pages(account)[0]).context["adminform"]
    assert {group.name for group in form.form.fields["groups"].queryset} == {"annotator", "adjudicator"}
    assert {"is_staff", "is_superuser", "user_permissions"} <= set(form.readonly_fields)
    response = client.post(user_pages(account)[1], {"password1": "Nowe-haslo-123", "password2": "Nowe-haslo-123"})
    assert response.status_code == 302
    account.refresh_from_db()
    assert account.check_password("Nowe-haslo-123")


def test_in_the_admin_a_superuser_changes_an_organizer(client):
    client.force_login(make_superuser())
    account = target("organizer")
    for url in user_pages(account):
        assert client.get(url).status_code == 200, url
    form = client.get(user_pages(account)[0]).context["adminform"]
    assert "organizer" in {group.name for group in form.form.fields["groups"].queryset}
    client.post(user_pages(account)[1], {"password1": "Nowe-haslo-123", "password2": "Nowe-haslo-123"})
    account.refresh_from_db()
    assert account.check_password("Nowe-haslo-123")


@pytest.fixture
def history():
    dataset = import_sample("wsd")
    annotator = make_user(username="ala")
    assign(dataset, [annotator], 1)
    annotation = submit_answers(dataset, annotator, every=5)[0]
    AnnotationRevision.objects.create(annotation=annotation, version=1, answer=annotation.answer, status="submitted")
    Flag.objects.create(item=annotation.item, raised_by=annotator, comment="?")
    adjudication = Adjudication.objects.create(
        item=annotation.item, answer=annotation.answer, source="annotation", source_annotation=annotation,
        adjudicator=make_user("adjudicator"), decided_at=annotation.updated_at,
    )
    AdjudicationRevision.objects.create(
        adjudication=adjudication, version=1, answer=adjudication.answer, source="annotation",
        adjudicator=adjudication.adjudicator,
    )
    return {
        "item": annotation.item, "goldanswer": GoldAnswer.objects.filter(item__dataset=dataset).first(),
        "annotation": annotation, "annotationrevision": AnnotationRevision.objects.first(),
        "adjudication": adjudication, "adjudicationrevision": AdjudicationRevision.objects.first(),
        "flag": Flag.objects.first(),
    }


def test_organizers_see_history_read_only_and_delete_none_of_it(client, history):
    client.force_login(make_user("organizer", username="acting"))
    for model, record in history.items():
        change = reverse(f"admin:annotation_{model}_change", args=[record.pk])
        response = client.get(change)
        assert response.status_code == 200, model
        # A flag's resolution may be written here; its annotator's words may not.
        assert response.context["has_change_permission"] == (model == "flag"), model
        assert client.get(reverse(f"admin:annotation_{model}_delete", args=[record.pk])).status_code == 403, model
        client.post(reverse(f"admin:annotation_{model}_delete", args=[record.pk]), {"post": "yes"})
        client.post(
            reverse(f"admin:annotation_{model}_changelist"),
            {"action": "delete_selected", "_selected_action": [record.pk], "post": "yes"},
        )
        assert type(record).objects.filter(pk=record.pk).exists(), model
    dataset = history["item"].dataset
    client.post(reverse("admin:annotation_dataset_delete", args=[dataset.pk]), {"post": "yes"})
    assert Annotation.objects.filter(pk=history["annotation"].pk).exists()  # not through its dataset either


def test_a_superuser_deletes_history(client, history):
    client.force_login(make_superuser())
    flag = history["flag"]
    assert client.get(reverse("admin:annotation_flag_delete", args=[flag.pk])).status_code == 200
    client.post(reverse("admin:annotation_flag_delete", args=[flag.pk]), {"post": "yes"})
    assert not Flag.objects.filter(pk=flag.pk).exists()
    annotation = history["annotation"]
    client.post(reverse("admin:annotation_annotation_delete", args=[annotation.pk]), {"post": "yes"})
    assert not Annotation.objects.filter(pk=annotation.pk).exists()
