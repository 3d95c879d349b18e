"""The organizer sets a study up: every setting saved, the entry link to copy, refusals naming
their field (a dataset without routing, a format that does not compile, a return link without
{code}, a bonus rule without its amount or threshold, attention items not in the control pools,
several datasets without a campaign), the datasets fixed once someone entered; pause, reopen, close."""

import html
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from annotation.models import Campaign, Study, StudyDataset
from tests.factories import make_dataset, make_user
from tests.studies.organizer import control_pool, participant
from tests.studies.panel import make_study, routed_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer_client(client):
    client.force_login(make_user("organizer"))
    return client


def settings(**changes) -> dict:
    """A complete set-up form: every setting, and one dataset row."""
    data = {
        "name": "panel-1", "campaign": "", "deadline_minutes": "45", "consent": "Zgadzam się.",
        "completed_code": "DONE1", "screened_out_code": "OUT1", "no_consent_code": "NO1",
        "return_link": "https://app.prolific.com/submissions/complete?cc={code}",
        "participant_parameter": "PROLIFIC_PID", "study_parameter": "STUDY_ID", "session_parameter": "SESSION_ID",
        "participant_id_pattern": "[0-9a-f]{24}", "panel_study_id": "abc", "test_ids": "PREVIEW",
        "pay_amount": "3.50", "pay_currency": "GBP", "pay_basis": "participant", "minimum_hourly_rate": "9.00",
        "bonus_rule": "none", "bonus_amount": "", "bonus_threshold": "", "attention_items": "",
        "attention_failures": "2",
        "steps-TOTAL_FORMS": "3", "steps-INITIAL_FORMS": "0", "steps-MIN_NUM_FORMS": "0", "steps-MAX_NUM_FORMS": "1000",
    }
    data.update(changes)
    return data


def post(client, data, study: Study | None = None):
    url = reverse("organizer_study_new") if study is None else reverse("organizer_study_settings", args=[study.pk])
    return client.post(url, data)


def test_a_study_is_created_with_every_setting_and_shows_its_entry_link(organizer_client):
    dataset = routed_dataset(6, 2)
    response = post(organizer_client, settings(**{"steps-0-dataset": dataset.pk, "steps-0-quota": "4",
                                                  "bonus_rule": "threshold", "bonus_amount": "0.50",
                                                  "bonus_threshold": "0.8"}))
    study = Study.objects.get()
    assert response.status_code == 302 and response.url == reverse("organizer_study", args=[study.pk])
    assert (study.deadline_minutes, study.pay_amount, study.minimum_hourly_rate, study.bonus_threshold) == (
        45, Decimal("3.50"), Decimal("9.00"), 0.8)
    assert list(study.steps.values_list("dataset_id", "order", "quota")) == [(dataset.pk, 1, 4)]
    assert len(study.token) >= 32 and study.state == Study.State.OPEN
    page = organizer_client.get(response.url).content.decode()
    link = (f"http://testserver/study/{study.token}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
            "&amp;STUDY_ID={{%STUDY_ID%}}&amp;SESSION_ID={{%SESSION_ID%}}")
    assert link in page
    assert organizer_client.get(reverse("organizer_studies")).content.decode().count(study.name) >= 1


def test_a_campaign_study_takes_the_campaigns_datasets_in_the_order_given(organizer_client):
    first, second = routed_dataset(4, 1), routed_dataset(4, 1)
    campaign = Campaign.objects.create(name="c1")
    campaign.datasets.add(first, second)
    post(organizer_client, settings(campaign=campaign.pk, **{
        "steps-0-dataset": second.pk, "steps-0-quota": "2", "steps-1-dataset": first.pk, "steps-1-quota": "3"}))
    assert list(Study.objects.get().steps.values_list("dataset_id", "quota")) == [(second.pk, 2), (first.pk, 3)]


def refused(client, data, study=None) -> str:
    response = post(client, data, study)
    assert response.status_code == 422
    return html.unescape(response.content.decode())


def test_a_dataset_without_routing_is_refused_by_name(organizer_client):
    fixed = make_dataset("commas", [{"id": "c1", "sentence_with_positions": "Ala [1] ma kota."}], name="fixed-queues")
    page = refused(organizer_client, settings(**{"steps-0-dataset": fixed.pk, "steps-0-quota": "1"}))
    assert "fixed-queues gives fixed queues: a study's datasets need routing on" in page
    assert "<code>routing</code>" in page
    assert not Study.objects.exists()


@pytest.mark.parametrize("changes, label, message", [
    ({"participant_id_pattern": "[0-9a-f"}, "Participant id format", "is not a regular expression that compiles"),
    ({"return_link": "https://app.prolific.com/submissions/complete"}, "Return link", "must hold {code}"),
    ({"bonus_rule": "per_control"}, "Bonus amount", "the bonus rule needs its amount"),
    ({"bonus_rule": "threshold", "bonus_amount": "1.00", "bonus_threshold": "1.5"}, "Control accuracy for the bonus",
     "needs its threshold, a share between 0 and 1"),
    ({"attention_items": "k1\nnowhere"}, "Attention checks", "nowhere: no control item of the study"),
    ({"study_parameter": "PROLIFIC_PID"}, "Study id parameter", "three different names"),
    ({"deadline_minutes": "0"}, "Time per participant (minutes)", "greater than or equal to 1"),
])
def test_a_setting_refused_names_its_field(organizer_client, changes, label, message):
    dataset = routed_dataset(4, 1)
    control_pool(dataset, ["k1"])
    page = refused(organizer_client, settings(**{"steps-0-dataset": dataset.pk, "steps-0-quota": "1", **changes}))
    assert message in page
    assert re.search(rf"<td>{re.escape(label)}[^<]*</td><td>[^<]*{re.escape(message)}", page), page
    assert not Study.objects.exists()


def test_several_datasets_need_a_campaign_and_a_campaigns_own(organizer_client):
    first, second = routed_dataset(4, 1), routed_dataset(4, 1)
    two = {"steps-0-dataset": first.pk, "steps-0-quota": "1", "steps-1-dataset": second.pk, "steps-1-quota": "1"}
    assert "A study without a campaign has one dataset" in refused(organizer_client, settings(**two))
    campaign = Campaign.objects.create(name="c2")
    campaign.datasets.add(first)
    assert f"{second.name} is not a dataset of the campaign c2" in refused(organizer_client, settings(
        campaign=campaign.pk, **two))
    assert "A study needs a dataset" in refused(organizer_client, settings())
    assert not Study.objects.exists()
    make_study((first, 1), name="taken")
    assert "a study named taken exists already" in refused(organizer_client, settings(name="taken", **two))


def test_the_datasets_stay_once_someone_entered_while_the_other_settings_change(organizer_client):
    dataset, other = routed_dataset(4, 1), routed_dataset(4, 1)
    study = make_study((dataset, 2))
    participant(study, 1, None)
    page = refused(organizer_client, settings(name=study.name, **{"steps-0-dataset": other.pk, "steps-0-quota": "2"}),
                   study)
    assert "Participants have entered the study already" in page
    response = post(organizer_client, settings(name=study.name, pay_amount="4.00", **{
        "steps-0-dataset": dataset.pk, "steps-0-quota": "2"}), study)
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.pay_amount == Decimal("4.00")
    assert list(StudyDataset.objects.filter(study=study).values_list("dataset_id", "quota")) == [(dataset.pk, 2)]


def test_pause_reopen_and_close(organizer_client):
    study = make_study((routed_dataset(4, 1), 1))
    Study.objects.filter(pk=study.pk).update(closed_by_itself=True)
    url = reverse("organizer_study_state", args=[study.pk])
    # The buttons each state offers: the other two.
    offered = {"open": ["paused", "closed"], "paused": ["open", "closed"], "closed": ["open"]}
    for state in ("paused", "open", "closed", "open"):
        assert organizer_client.post(url, {"state": state}).status_code == 302
        study.refresh_from_db()
        assert study.state == state and not study.closed_by_itself
        page = organizer_client.get(reverse("organizer_study", args=[study.pk])).content.decode()
        assert sorted(re.findall(r'name="state" value="(\w+)"', page)) == sorted(offered[state])
    assert organizer_client.get(url).status_code == 405
    assert organizer_client.post(url, {"state": "gone"}).status_code == 400
    study.refresh_from_db()
    assert study.state == "open"
