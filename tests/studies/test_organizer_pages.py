"""The organizer's study pages: organizers only (annotators, adjudicators and participants
refused on every page, GET and POST), no GET writes, and the study page in a bounded number of
queries whatever the number of participants."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Study, StudyRefusal
from tests.factories import make_user
from tests.studies.organizer import ANSWER, answer, participant, worked_study
from tests.studies.panel import panel_id
from tests.writes import rows_written, tables_written

pytestmark = pytest.mark.django_db


def study_urls(study: Study) -> list[str]:
    pages = ("organizer_study", "organizer_study_settings", "organizer_study_state", "organizer_study_reconcile",
             "organizer_study_delete_ids")
    return [reverse("organizer_studies"), reverse("organizer_study_new"),
            *(reverse(name, args=[study.pk]) for name in pages),
            *(reverse("organizer_study", args=[study.pk]) + f"?download={kind}" for kind in ("bonus", "approve", "review"))]


@pytest.mark.parametrize("role", ["annotator", "adjudicator", "participant"])
def test_annotators_adjudicators_and_participants_are_refused_on_every_page(client, role):
    study = worked_study()
    user = study.participants.first().user if role == "participant" else make_user(role)
    client.force_login(user)
    for url in study_urls(study):
        for response in (client.get(url), client.post(url, {"state": "closed"})):
            assert response.status_code == 403, url
    study.refresh_from_db()
    assert study.state == Study.State.OPEN and study.participants.filter(panel_id__isnull=False).count() == 5


def test_anonymous_visitors_are_sent_to_the_login(client):
    study = worked_study()
    for url in study_urls(study):
        assert client.get(url).url.startswith(reverse("login"))


def test_no_get_of_an_organizer_writes(client):
    study = worked_study(bonus_rule=Study.BonusRule.PER_CONTROL, bonus_amount="0.10")
    client.force_login(make_user("organizer"))
    client.get(reverse("organizer_studies"))  # the session's first use: its row
    for url in study_urls(study):
        before = rows_written()
        client.get(url)
        assert not tables_written(before), url


def test_every_page_opens_for_an_organizer(client):
    study = worked_study()
    client.force_login(make_user("organizer"))
    for name in ("organizer_studies", "organizer_study_new"):
        assert client.get(reverse(name)).status_code == 200
    for name in ("organizer_study", "organizer_study_settings", "organizer_study_delete_ids"):
        assert client.get(reverse(name, args=[study.pk])).status_code == 200
    settings_page = client.get(reverse("organizer_study_settings", args=[study.pk])).content.decode()
    assert f'value="{study.name}"' in settings_page and "Zgadzam się na udział." in settings_page


def page_queries(client, study: Study) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("organizer_study", args=[study.pk])).status_code == 200
    return len(queries)


def test_the_study_page_runs_a_bounded_number_of_queries(client, django_assert_max_num_queries):
    study = worked_study()
    organizer = make_user("organizer")
    client.force_login(organizer)
    few = page_queries(client, study)
    dataset = study.steps.get().dataset
    control = list(dataset.pools.get().items.all())
    for number in range(10, 40):
        someone = participant(study, number, 12 + number % 7)
        answer(someone.user, control[number % 3], dataset, ANSWER)
        StudyRefusal.objects.create(study=study, panel_id=panel_id(number), reason=StudyRefusal.Reason.OTHER_SESSION)
    assert User.objects.count() > 36
    with django_assert_max_num_queries(few):
        client.get(reverse("organizer_study", args=[study.pk]))
    assert page_queries(client, study) == few, few


def test_the_organizers_study_pages_are_in_polish(client):
    study = worked_study(minimum_hourly_rate="10.00")
    client.force_login(make_user("organizer"))
    pages = {name: client.get(reverse(name, args=[study.pk]), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
             for name in ("organizer_study", "organizer_study_settings", "organizer_study_delete_ids")}
    pages["organizer_studies"] = client.get(reverse("organizer_studies"), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Efektywna stawka godzinowa" in pages["organizer_study"] and "Effective hourly pay" not in pages["organizer_study"]
    assert "jest niższa od minimalnej stawki godzinowej" in pages["organizer_study"]
    assert "Nigdy nie ma listy za niską trafność" in pages["organizer_study"]
    assert "Zbiory po kolei, każdy z limitem pozycji na uczestnika" in pages["organizer_study_settings"]
    assert "Usuń identyfikatory z panelu na stałe" in pages["organizer_study_delete_ids"]
    assert "Nowe badanie" in pages["organizer_studies"]
