"""Reports computed off the request path: the data version a computation is stored under, one
computation per version, the page's age and changes, the compute-now button, the API serving
the stored report, the throttle of automatic computations and the follow-up that keeps a
report up to date while answers come in."""

import re
from datetime import timedelta

import pytest
from django.db.models import Count, Max, Q
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone
from django_tasks import default_task_backend

from annotation.datasets.organizing import withdraw_item
from annotation.models import (
    Adjudication,
    Annotation,
    Campaign,
    GoldAnswer,
    StoredReport,
    StoredReportPart,
    TrainingRound,
)
from annotation.results import computing
from annotation.results.computing import request_report, run_computation, serve_report
from annotation.results.plots import plot_part_key
from annotation.results.report import dataset_report
from annotation.results.selectors import dataset_version, version_key
from annotation.results.services import create_campaign, upload_model_submission
from tests.factories import assign_in_order, make_dataset, make_user
from tests.organizer.test_report import answer, model_file, organizer_client, wsd_record

pytestmark = pytest.mark.django_db

DUMMY = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
OPTIONS = {"seed": 0, "exclude_below_control": False}


@pytest.fixture
def wsd_dataset():
    """The dataset of test_report.py: gold A, B, C, D; ann1 answers A, B, D, ann2 all four right."""
    records = [wsd_record(number) for number in range(1, 5)]
    dataset = make_dataset("wsd", records, gold=[{"id": r["id"], "answer": label} for r, label in zip(records, "ABCD")],
                           name="wsd-tiny")
    ann1, ann2 = make_user("annotator", "ann1"), make_user("annotator", "ann2")
    for annotator in (ann1, ann2):
        assign_in_order(dataset, annotator)
    for external_id, label in zip(["w1", "w2", "w3"], "ABD"):
        answer(dataset, ann1, external_id, label, 10_000)
    for external_id, label in zip(["w1", "w2", "w3", "w4"], "ABCD"):
        answer(dataset, ann2, external_id, label, 30_000)
    return dataset


def part(stored, kind: str, key: str) -> str:
    return StoredReportPart.objects.get(stored=stored, kind=kind, key=key).content


def page_url(dataset) -> str:
    return reverse("organizer_report", args=[dataset.pk])


def new_answer(dataset, username: str = "ann3", external_id: str = "w1") -> None:
    annotator = make_user("annotator", username)
    answer(dataset, annotator, external_id, "A", 1000)


def test_the_data_version_changes_with_everything_a_report_reads_and_only_then(wsd_dataset):
    keys = [version_key(dataset_version(wsd_dataset))]
    assert version_key(dataset_version(wsd_dataset)) == keys[0]  # nothing changed: the same version

    def changed(step):
        step()
        keys.append(version_key(dataset_version(wsd_dataset)))
        return keys[-1] != keys[-2]

    item = wsd_dataset.items.get(external_id="w1")
    annotation = Annotation.objects.filter(item=item).first()
    organizer = make_user("organizer")
    assert changed(lambda: new_answer(wsd_dataset))
    assert changed(lambda: Annotation.objects.filter(pk=annotation.pk).update(answer={"answer": "B"},
                                                                             updated_at=timezone.now()))
    assert changed(lambda: Adjudication.objects.create(item=item, answer={"answer": "A"}, source="majority",
                                                       decided_at=timezone.now()))
    assert changed(lambda: wsd_dataset.items.filter(external_id="w4").update(withdrawn_at=timezone.now(),
                                                                            withdrawn_by=organizer))
    assert changed(lambda: GoldAnswer.objects.filter(item__external_id="w2", item__dataset=wsd_dataset).delete())
    assert changed(lambda: upload_model_submission(dataset=wsd_dataset, name="m", submission=model_file("ABCD")))
    assert changed(lambda: type(wsd_dataset).objects.filter(pk=wsd_dataset.pk).update(threshold=0.5))
    assert changed(lambda: TrainingRound.objects.create(dataset=wsd_dataset, annotator=organizer, attempt=1))
    assert len(set(keys)) == len(keys)


def test_the_data_version_is_its_aggregates_read_in_one_statement(wsd_dataset, django_assert_num_queries):
    withdraw_item(wsd_dataset.items.order_by("ordinal").first(), make_user("organizer"), "Zepsute.")
    with django_assert_num_queries(2):  # the settings, then every aggregate
        version = dataset_version(wsd_dataset)
    answers = Annotation.objects.filter(item__dataset=wsd_dataset).aggregate(
        n=Count("pk"), submitted=Count("pk", filter=Q(status="submitted")), last_changed=Max("updated_at"),
        last_submitted=Max("submitted_at"), last_id=Max("pk"))
    items = wsd_dataset.items.aggregate(n=Count("pk"), withdrawn=Count("withdrawn_at"), last_withdrawn=Max("withdrawn_at"),
                                        last_id=Max("pk"))
    iso = {"last_changed", "last_submitted", "last_withdrawn"}
    assert version["answers"] == {key: value.isoformat() if key in iso else value for key, value in answers.items()}
    assert version["items"] == {key: value.isoformat() if key in iso else value for key, value in items.items()}
    assert version["training"] == {"n": 0, "finished": 0, "last_finished": None, "released": 0, "last_released": None}


@override_settings(TASKS=DUMMY)
def test_two_requests_of_one_version_start_one_computation(wsd_dataset):
    default_task_backend.clear()
    first = request_report(dataset=wsd_dataset, **OPTIONS)
    assert first is not None and first.status == StoredReport.Status.PENDING
    # Asked again, by a page, the API or the button, while it waits: nothing more starts.
    assert request_report(dataset=wsd_dataset, **OPTIONS) is None
    assert request_report(dataset=wsd_dataset, **OPTIONS, now_asked=True) is None
    assert serve_report(dataset=wsd_dataset, **OPTIONS).stored is None
    assert StoredReport.objects.count() == 1
    assert [result.task.name for result in default_task_backend.results] == ["compute_report"]
    # Two workers given the same computation: one computes it, the other finds it taken.
    assert run_computation(first.pk) is True and run_computation(first.pk) is False
    assert StoredReport.objects.get().status == StoredReport.Status.DONE
    # The database refuses a second row of the same version.
    with pytest.raises(Exception):  # noqa: B017 (IntegrityError inside the test's transaction)
        StoredReport.objects.create(dataset=wsd_dataset, version=first.version, **OPTIONS)


@override_settings(TASKS=DUMMY)
def test_a_computation_whose_worker_died_is_started_again_after_20_minutes(wsd_dataset):
    default_task_backend.clear()
    row = request_report(dataset=wsd_dataset, **OPTIONS)
    StoredReport.objects.filter(pk=row.pk).update(status=StoredReport.Status.RUNNING,
                                                  started_at=timezone.now() - timedelta(minutes=19))
    assert request_report(dataset=wsd_dataset, **OPTIONS, now_asked=True) is None  # still under way
    # Asked for long ago, taken 21 minutes ago and never finished: its worker died.
    StoredReport.objects.filter(pk=row.pk).update(requested_at=timezone.now() - timedelta(minutes=40),
                                                  started_at=timezone.now() - timedelta(minutes=21))
    restarted = request_report(dataset=wsd_dataset, **OPTIONS)
    assert (restarted.pk, restarted.status, restarted.started_at) == (row.pk, StoredReport.Status.PENDING, None)
    assert [result.task.name for result in default_task_backend.results] == ["compute_report"] * 2
    assert run_computation(row.pk) and StoredReport.objects.get().status == StoredReport.Status.DONE

    # Abandoned on older data: it ends as failed, and the data as it is is computed instead.
    new_answer(wsd_dataset)
    old = request_report(dataset=wsd_dataset, **OPTIONS, now_asked=True)
    StoredReport.objects.filter(pk=old.pk).update(status=StoredReport.Status.RUNNING,
                                                  started_at=timezone.now() - timedelta(minutes=21))
    new_answer(wsd_dataset, "ann4")
    newer = request_report(dataset=wsd_dataset, **OPTIONS, now_asked=True)
    assert newer.pk != old.pk and newer.status == StoredReport.Status.PENDING
    old.refresh_from_db()
    assert (old.status, old.error) == (StoredReport.Status.FAILED, computing.ABANDONED_ERROR)
    # A computation waiting 20 minutes lost its task: asked for again.
    StoredReport.objects.filter(pk=newer.pk).update(requested_at=timezone.now() - timedelta(minutes=21))
    assert request_report(dataset=wsd_dataset, **OPTIONS).pk == newer.pk
    assert len(default_task_backend.results) == 5


@override_settings(TASKS=DUMMY)
def test_before_the_first_computation_finishes_the_page_says_so_and_downloads_wait(wsd_dataset):
    client = organizer_client()
    response = client.get(page_url(wsd_dataset))
    assert response.status_code == 202 and 'id="report-pending"' in response.content.decode()
    for query in ("?format=json", "?plot=scores"):
        response = client.get(page_url(wsd_dataset) + query)
        assert response.status_code == 202 and response["Retry-After"] == "5"
    response = client.get(f"/api/datasets/{wsd_dataset.pk}/report")
    assert response.status_code == 202 and response.json()["computing"] is True
    assert StoredReport.objects.count() == 1  # every view found the one computation waiting


def test_the_page_serves_the_stored_report_with_its_age_and_what_changed(wsd_dataset):
    client = organizer_client()
    page = client.get(page_url(wsd_dataset)).content.decode()
    stored = StoredReport.objects.get()
    assert "Up to date: no change since." in page and 'id="report-changes"' not in page
    with override_settings(POLIS_REPORT_REFRESH=timedelta(minutes=10)):
        new_answer(wsd_dataset, "ann3")
        new_answer(wsd_dataset, "ann4", "w2")
        response = client.get(page_url(wsd_dataset))
    page = response.content.decode()
    when = timezone.localtime(stored.computed_at).strftime("%H:%M")
    assert re.search(rf'id="report-changes">\s*2 new answers since {when}\.', page), page
    assert f'datetime="{stored.computed_at.isoformat()}"'[:30] in page or "ago" in page
    # Served from the stored computation: the new annotators are in no figure yet.
    assert "annotator ann3" not in page and response.context["body"] == part(stored, "page", "en")
    assert StoredReport.objects.count() == 1


@override_settings(POLIS_REPORT_REFRESH=timedelta(minutes=10))
def test_the_compute_now_button_posts_with_csrf_and_computes_the_data_as_it_is(wsd_dataset):
    organizer = make_user("organizer")
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    page = client.get(page_url(wsd_dataset))
    token = re.search(r'action="([^"]+)">\s*<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"',
                      page.content.decode())
    assert token and token.group(1) == reverse("organizer_report_compute", args=[wsd_dataset.pk])
    new_answer(wsd_dataset, "ann3")
    assert client.get(page_url(wsd_dataset)).context["body"] == part(StoredReport.objects.get(), "page", "en")
    assert client.post(token.group(1), {"seed": "0"}).status_code == 403  # no CSRF token
    assert client.get(token.group(1)).status_code == 405  # a GET starts nothing
    assert StoredReport.objects.count() == 1
    response = client.post(token.group(1), {"seed": "0", "csrfmiddlewaretoken": token.group(2)})
    assert response.status_code == 302 and response.url == page_url(wsd_dataset) + "?seed=0"
    assert StoredReport.objects.count() == 2
    page = client.get(response.url).content.decode()
    assert "annotator ann3" in page and "Up to date" in page
    # Bad input: a seed no page posts.
    assert client.post(token.group(1), {"seed": "-1", "csrfmiddlewaretoken": token.group(2)}).status_code == 404


def test_the_campaign_page_has_its_button_and_serves_its_stored_table(wsd_dataset):
    campaign = create_campaign(name="c", datasets=[wsd_dataset])
    client = organizer_client()
    page = client.get(reverse("organizer_campaign", args=[campaign.pk])).content.decode()
    assert reverse("organizer_campaign_compute", args=[campaign.pk]) in page and "Up to date" in page
    stored = StoredReport.objects.get(campaign=campaign)
    assert client.get(reverse("organizer_campaign", args=[campaign.pk]) + "?format=csv").content.decode() \
        == part(stored, "file", "csv")
    response = client.post(reverse("organizer_campaign_compute", args=[campaign.pk]), {"seed": "0"})
    assert response.status_code == 302 and StoredReport.objects.filter(campaign=campaign).count() == 1  # current


def test_the_api_returns_the_stored_report(wsd_dataset):
    client = organizer_client()
    first = client.get(f"/api/datasets/{wsd_dataset.pk}/report").json()
    stored = StoredReport.objects.get()
    assert {key: value for key, value in first.items() if key != "computation"} == stored.report
    assert first["computation"] == {"computed_at": stored.computed_at.isoformat(), "current": True, "changes": [],
                                    "computing": False}
    with override_settings(POLIS_REPORT_REFRESH=timedelta(minutes=10)):
        new_answer(wsd_dataset)
        again = client.get(f"/api/datasets/{wsd_dataset.pk}/report").json()
    assert again["computed_at"] == first["computed_at"]
    assert again["computation"]["current"] is False and again["computation"]["changes"] == ["1 new answer"]
    # Without the throttle the next call computes the data as it is: the report builder's figures.
    fresh = dataset_report(wsd_dataset, seed=0)
    latest = client.get(f"/api/datasets/{wsd_dataset.pk}/report").json()
    assert latest["computation"]["current"] is True and latest["sources"] == fresh["sources"] != again["sources"]


def test_the_stored_figures_are_the_report_builders(wsd_dataset):
    upload_model_submission(dataset=wsd_dataset, name="m", submission=model_file("ABCC"))
    served = serve_report(dataset=wsd_dataset, seed=5, exclude_below_control=False)
    built = dataset_report(wsd_dataset, seed=5)
    assert {**served.stored.report, "computed_at": None} == {**built, "computed_at": None}
    plot_keys = [plot_part_key(plot["language"], plot["key"]) for plot in served.stored.plots]
    assert {"en/scores", "pl/scores"} <= set(plot_keys)  # every plot drawn in each language of the site
    assert {plot["key"] for plot in served.stored.plots if plot["language"] == "pl"} == \
        {plot["key"] for plot in served.stored.plots if plot["language"] == "en"}
    assert set(StoredReportPart.objects.filter(kind="file").values_list("key", flat=True)) == {"json", "md", "csv", "tex",
                                                                                            "difficulty"}
    assert set(StoredReportPart.objects.filter(kind="plot").values_list("key", flat=True)) == set(plot_keys)


def test_the_throttle_setting_spaces_automatic_computations(wsd_dataset):
    client = organizer_client()
    with override_settings(POLIS_REPORT_REFRESH=timedelta(minutes=5)):
        client.get(page_url(wsd_dataset))
        new_answer(wsd_dataset, "ann3")
        client.get(page_url(wsd_dataset))
        client.get(f"/api/datasets/{wsd_dataset.pk}/report")
        assert StoredReport.objects.count() == 1  # asked for less than 5 minutes ago: the old one is served
        StoredReport.objects.update(requested_at=timezone.now() - timedelta(minutes=6))
        client.get(page_url(wsd_dataset))
        assert StoredReport.objects.count() == 2  # 6 minutes later the next view starts one
        new_answer(wsd_dataset, "ann4")
        client.get(page_url(wsd_dataset))
        assert StoredReport.objects.count() == 2
    with override_settings(POLIS_REPORT_REFRESH=timedelta(0)):
        client.get(page_url(wsd_dataset))
        assert StoredReport.objects.count() == 3  # no throttle: every change


@override_settings(TASKS=DUMMY, POLIS_REPORT_REFRESH=timedelta(minutes=3))
def test_a_finished_computation_looks_again_later_and_follows_the_answers(wsd_dataset):
    default_task_backend.clear()
    row = request_report(dataset=wsd_dataset, **OPTIONS)
    run_computation(row.pk)
    follow_up = default_task_backend.results[-1]
    assert follow_up.task.name == "refresh_report"
    assert timedelta(minutes=2) < follow_up.task.run_after - timezone.now() <= timedelta(minutes=3)
    # Nothing changed by then: nothing starts, and the chain ends.
    assert computing.refresh_report.call(*follow_up.args) is False
    new_answer(wsd_dataset)
    StoredReport.objects.update(requested_at=timezone.now() - timedelta(minutes=3))
    assert computing.refresh_report.call(*follow_up.args) is True
    assert StoredReport.objects.filter(status=StoredReport.Status.PENDING).count() == 1
    assert Campaign.objects.count() == 0


def test_a_language_the_body_was_not_drawn_in_is_drawn_from_the_stored_report(wsd_dataset):
    client = organizer_client()
    english = client.get(page_url(wsd_dataset)).content.decode()
    StoredReportPart.objects.filter(kind="page").delete()
    response = client.get(page_url(wsd_dataset))
    def without_tokens(page: str) -> str:
        return re.sub(r'(csrfmiddlewaretoken" value="|CSRFToken": ")[^"]+', "", page)

    assert response.context["body"] is None and without_tokens(response.content.decode()) == without_tokens(english)


def test_the_age_changes_and_button_are_in_polish(wsd_dataset):
    client = organizer_client()
    client.get(page_url(wsd_dataset))
    with override_settings(POLIS_REPORT_REFRESH=timedelta(minutes=10)):
        new_answer(wsd_dataset, "ann3")
        new_answer(wsd_dataset, "ann4", "w2")
        page = client.get(page_url(wsd_dataset), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Oblicz teraz" in page and "Obliczony" in page and "temu" in page
    assert re.search(r"2 nowe odpowiedzi od \d\d:\d\d\.", page), page
