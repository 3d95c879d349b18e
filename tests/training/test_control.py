"""Control items: interleaved by a seed, indistinguishable on the item page, counted nowhere
but in the organizer's control accuracy."""

import statistics

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.adjudicate.selectors import adjudicator_datasets
from annotation.annotate import qualification
from annotation.annotate import queue as queues
from annotation.annotate.services import save_answer
from annotation.datasets.assigning import assign, is_control_position, release_items
from annotation.datasets.progress import annotator_progress
from annotation.models import Assignment, Dataset, TrainingRound
from annotation.results.agreement import counted_items, dataset_answers
from annotation.results.exporting import build_export, build_submission
from annotation.results.exports import export_summaries
from annotation.results.report import dataset_report
from annotation.training import services as training
from annotation.training.selectors import ControlSeries, control_accuracy, control_alerts, training_procedure
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def control_positions(dataset, annotator) -> list[int]:
    return sorted(
        Assignment.objects.filter(dataset=dataset, annotator=annotator, item__dataset__pool_kind=Dataset.PoolKind.CONTROL)
        .values_list("position", flat=True)
    )


@pytest.fixture
def controlled(dataset, control_pool):
    dataset.control_rate, dataset.control_seed = 4, "seed-1"
    dataset.save()
    return dataset


def answer_everything(annotator, dataset, letter="A"):
    for position in sorted(queues.queue(annotator, dataset).values_list("position", flat=True)):
        page = queues.item_page(annotator, dataset.pk, position)
        save_answer(page=page, answer={"answer": letter}, submit=True, based_on_version=0)


def test_the_interleaving_is_one_in_n_and_reproducible_with_the_seed(controlled, annotator):
    assign(controlled, [annotator], 1)
    positions = control_positions(controlled, annotator)
    # 12 real items: one control in each block of 4 positions (the last block's only if a
    # real item follows its slot: a queue never ends on a control item)
    assert len(positions) >= 3
    assert [(position - 1) // 4 for position in positions] == list(range(len(positions)))
    assert all(is_control_position(controlled, annotator.username, position) for position in positions)
    order = list(Assignment.objects.filter(annotator=annotator).order_by("position").values_list("item__external_id", flat=True))
    Assignment.objects.all().delete()
    assign(controlled, [annotator], 1)
    assert list(Assignment.objects.filter(annotator=annotator).order_by("position")
                .values_list("item__external_id", flat=True)) == order
    others = []
    for seed in ("seed-2", "seed-3", "seed-4"):
        Assignment.objects.all().delete()
        controlled.control_seed = seed
        controlled.save()
        assign(controlled, [annotator], 1)
        others.append(control_positions(controlled, annotator))
    assert any(other != positions for other in others)


def test_a_control_item_looks_like_any_item(controlled, annotator, client):
    assign(controlled, [annotator], 1)
    client.force_login(annotator)
    control = control_positions(controlled, annotator)[0]
    ordinary = next(p for p in range(1, 17) if p not in control_positions(controlled, annotator))
    pages = {}
    for position in (control, ordinary):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("annotate_item", args=[controlled.pk, position]))
        assert response.status_code == 200
        pages[position] = ([template.name for template in response.templates], len(queries))
        assert "control" not in response.content.decode().lower()
    assert pages[control] == pages[ordinary]


def test_control_items_never_reach_exports_or_agreement_and_count_in_progress(controlled, annotator):
    other = make_user("annotator")
    assign(controlled, [annotator, other], 2)
    answer_everything(annotator, controlled)
    answer_everything(other, controlled, "C")
    control_ids = set(controlled.pools.get().items.values_list("external_id", flat=True))
    for user in (annotator, other):
        submission = build_submission(controlled, user)
        assert len(submission.lines) == 12 and not control_ids & {line["id"] for line in submission.lines}
        assert submission.unanswered == []
        assert queues.progress(user, controlled).done
    assert not control_ids & set(counted_items(controlled).values_list("external_id", flat=True))
    assert not control_ids & {item.external_id for item in dataset_answers(controlled).items}


def test_the_organizer_and_the_annotator_count_the_same_progress_control_items_among_it(controlled, annotator):
    assign(controlled, [annotator], 1)
    positions = sorted(queues.queue(annotator, controlled).values_list("position", flat=True))
    for position in positions[:-1]:
        page = queues.item_page(annotator, controlled.pk, position)
        save_answer(page=page, answer={"answer": "A"}, submit=True, based_on_version=0)
    own = queues.progress(annotator, controlled)
    (row,) = annotator_progress(controlled)
    assert (row.submitted, row.assigned) == (own.submitted, own.assigned) == (len(positions) - 1, len(positions))
    assert control_positions(controlled, annotator)


def test_control_accuracy_per_annotator_with_an_alert_below_the_threshold(controlled, annotator, organizer, client):
    controlled.threshold = 0.8
    controlled.save()
    good = make_user("annotator")
    assign(controlled, [annotator, good], 2)
    answer_everything(annotator, controlled, "A")  # control gold is C: wrong
    answer_everything(good, controlled, "C")
    series = {line.annotator: line for line in control_accuracy(controlled)}
    assert set(series[annotator.username].accuracy) == {0.0} and len(series[annotator.username].accuracy) >= 3
    assert set(series[good.username].accuracy) == {1.0}
    assert [line.annotator for line in control_alerts(controlled, list(series.values()))] == [annotator.username]
    client.force_login(organizer)
    page = client.get(reverse("organizer_training", args=[controlled.pk])).content.decode()
    assert 'id="control-alerts"' in page and annotator.username in page
    plot = client.get(reverse("organizer_control_plot", args=[controlled.pk]))
    assert plot["Content-Type"] == "image/svg+xml" and plot.content.startswith(b"<?xml")
    assert annotator.username.encode() in plot.content
    procedure = training_procedure(controlled)
    rows = {row["annotator"]: row for row in procedure["annotators"]}
    assert procedure["control_rate"] == 4 and procedure["control_items"] == 6 and procedure["threshold"] == 0.8
    assert rows[annotator.username]["control_accuracy"] == 0.0 and rows[annotator.username]["below_control_threshold"]
    assert procedure["below_control_threshold"] == [annotator.username]
    # The human-baseline report states the procedure, on its page and in its JSON.
    assert dataset_report(controlled, resamples=10)["procedure"] == procedure
    report_page = client.get(reverse("organizer_report", args=[controlled.pk])).content.decode()
    assert 'id="procedure"' in report_page and "⚠" in report_page


def test_release_of_a_departed_annotator_moves_real_items_only(controlled, annotator):
    other = make_user("annotator")
    assign(controlled, [annotator], 1)
    before = control_positions(controlled, annotator)
    release_items(controlled, annotator, [other])
    assert Assignment.objects.filter(annotator=other, item__dataset=controlled).count() == 12
    assert control_positions(controlled, annotator) == before  # the departed annotator's control items stay theirs
    assert len(control_positions(controlled, other)) >= 3  # the taker gets their own, at the same rate


def test_the_api_names_the_dataset_a_control_item_was_assigned_in(controlled, annotator):
    assign(controlled, [annotator], 1)
    control = Assignment.objects.get(annotator=annotator, position=control_positions(controlled, annotator)[0])
    client = APIClient()
    client.force_authenticate(annotator)
    saved = client.post(reverse("api_annotations"), {"item": control.item_id, "answer": {"answer": "A"},
                                                     "status": "submitted", "version": 0}, format="json")
    assert saved.status_code == 201 and saved.json()["dataset"] == controlled.pk
    listed = client.get(reverse("api_annotations"), {"dataset": controlled.pk}).json()["results"]
    assert [entry["dataset"] for entry in listed] == [controlled.pk]
    items = client.get(reverse("api_dataset_items", args=[controlled.pk])).json()["results"]
    assert control.item_id in [entry["id"] for entry in items] and "gold" not in str(items[0]).lower()


@pytest.mark.parametrize("annotators", [2, 5])
def test_the_organizers_training_page_runs_a_bounded_number_of_queries(controlled, training_pool, organizer, client,
                                                                       annotators, django_assert_max_num_queries):
    controlled.threshold = 0.5
    controlled.save()
    users = [make_user("annotator") for _ in range(annotators)]
    assign(controlled, users, 1)
    for user in users:
        training.release_from_training(controlled, user, organizer)
        answer_everything(user, controlled)
    client.force_login(organizer)
    with django_assert_max_num_queries(16):
        assert client.get(reverse("organizer_training", args=[controlled.pk])).status_code == 200


def test_no_export_source_holds_control_items(controlled, annotator):
    other = make_user("annotator")
    assign(controlled, [annotator, other], 2)
    answer_everything(annotator, controlled, "A")
    answer_everything(other, controlled, "A")
    control_ids = set(controlled.pools.get().items.values_list("external_id", flat=True))
    for source in (f"annotator:{annotator.username}", "majority", "all"):
        export = build_export(controlled, source)
        text = export.data.decode()
        assert export.n_records == (24 if source == "all" else 12), source
        assert not any(external_id in text for external_id in control_ids), source
        assert not control_ids & {external_id for external_id, _ in export.left_out}, source
    summaries = {summary.source: summary for summary in export_summaries(controlled)}
    assert summaries[f"annotator:{annotator.username}"].n_records == 12
    assert summaries[f"annotator:{annotator.username}"].n_left_out == 0


def answer_real_and_control(annotator, dataset, real: str, control: str):
    """Answer ``real`` on the dataset's own items and ``control`` on its control items."""
    for position in sorted(queues.queue(annotator, dataset).values_list("position", flat=True)):
        page = queues.item_page(annotator, dataset.pk, position)
        letter = control if is_control_position(dataset, annotator.username, position) else real
        save_answer(page=page, answer={"answer": letter}, submit=True, based_on_version=0)


def test_the_report_can_leave_annotators_below_the_control_threshold_out_of_pooled_sources(
        controlled, annotator, organizer, client, tmp_path, capsys):
    controlled.threshold = 0.8
    controlled.save()
    careless, careful = annotator, [make_user("annotator") for _ in range(2)]
    assign(controlled, [careless, *careful], 3)
    answer_real_and_control(careless, controlled, "B", "A")  # control gold is C: below the threshold
    for user in careful:
        answer_real_and_control(user, controlled, "A", "C")  # the dataset's gold is A
    everyone = {row["source"]: row for row in dataset_report(controlled, resamples=10)["sources"]}
    report = dataset_report(controlled, resamples=10, exclude_below_control=True)
    rows = {row["source"]: row for row in report["sources"]}
    assert report["excluded"]["annotators"] == [careless.username] and "control threshold" in report["excluded"]["note"]
    # Every item is a disagreement (B against A, A) until the careless annotator is left out.
    assert not everyone["adjudicated"]["available"]
    assert rows["adjudicated"]["available"] and rows["adjudicated"]["n_missing"] == 0
    assert rows["adjudicated"]["secondary"]["accuracy"] == 1.0  # (macro-F1 over A-D is 0.25 with only A in gold)
    assert rows["majority"]["secondary"]["accuracy"] == everyone["majority"]["secondary"]["accuracy"] == 1.0
    # The careless annotator's own row stays.
    assert rows[f"annotator:{careless.username}"]["secondary"]["accuracy"] == 0.0
    assert dataset_report(controlled, resamples=10)["excluded"] is None
    # The same files from the export command and API, which name who was left out.
    out = tmp_path / "adjudicated.jsonl"
    call_command("export_submission", controlled.name, "--source", "adjudicated", "--exclude-below-control", "-o", str(out))
    assert out.read_bytes() == build_export(controlled, "adjudicated", excluded=[careless.username]).data
    assert out.read_bytes().count(b"\n") == 12
    assert f"below the control threshold: {careless.username}" in capsys.readouterr().err
    with pytest.raises(CommandError, match="nothing written"):
        call_command("export_submission", controlled.name, "--source", f"annotator:{careless.username}",
                     "--exclude-below-control", "-o", str(out))
    assert "only majority, dawid-skene and adjudicated can leave annotators out" in capsys.readouterr().err
    client.force_login(organizer)
    api = client.get(reverse("api_dataset_export", args=[controlled.pk]),
                     {"source": "adjudicated", "exclude_below_control": "1"})
    assert b"".join(api.streaming_content) == out.read_bytes()
    page = client.get(reverse("organizer_report", args=[controlled.pk]), {"exclude_below_control": "1"}).content.decode()
    excluded = page[page.index('id="excluded"'):]
    assert careless.username in excluded[:500] and "exclude_below_control=1" in page
    markdown = client.get(reverse("organizer_report", args=[controlled.pk]), {"exclude_below_control": "1", "format": "md"})
    assert "control threshold" in markdown.content.decode() and careless.username in markdown.content.decode()


def test_the_running_control_accuracy_is_the_exact_mean_of_the_answers_so_far():
    # Discourse correctness is a passage's LAS: summed one after the other, 0.1 + 0.2 + 0.3
    # gives 0.6000000000000001 and a mean of 0.20000000000000004; fmean's exact sum gives
    # 0.19999999999999998, whatever the order.
    line = ControlSeries("a", correctness=[0.1, 0.2, 0.3])
    assert line.accuracy == [0.1, statistics.fmean([0.1, 0.2]), statistics.fmean([0.1, 0.2, 0.3])]
    assert line.current == 0.19999999999999998


def test_an_annotator_below_the_control_threshold_can_be_sent_back_to_training(
        controlled, training_pool, annotator, organizer, client):
    """Qualified, then below the threshold on control items: the alert offers a fresh training
    round (their next item waits until they pass it again) and the report without them."""
    controlled.threshold = 0.8
    controlled.save()
    assign(controlled, [annotator], 1)
    TrainingRound.objects.create(dataset=controlled, annotator=annotator, attempt=1, finished_at=timezone.now(),
                                 score=1.0)  # qualified
    answer_everything(annotator, controlled, "A")  # control gold is C: wrong
    client.force_login(organizer)
    page = client.get(reverse("organizer_training", args=[controlled.pk])).content.decode()
    alerts = page[page.index('id="control-alerts"'):]
    assert f'data-annotator="{annotator.username}"' in alerts and "Send back to training" in alerts
    assert f'{reverse("organizer_report", args=[controlled.pk])}?exclude_below_control=1' in alerts
    response = client.post(reverse("organizer_training", args=[controlled.pk]),
                           {"action": "retry", "annotator": annotator.username})
    assert response.status_code == 302
    latest = controlled.training_rounds.filter(annotator=annotator).order_by("-attempt").first()
    assert (latest.attempt, latest.finished_at) == (2, None)
    assert not qualification.qualified(latest, controlled, has_training_pool=True)


def test_control_items_are_no_dataset_of_their_own_to_adjudicate(controlled, annotator):
    other = make_user("annotator")
    assign(controlled, [annotator, other], 2)
    answer_everything(annotator, controlled, "A")
    answer_everything(other, controlled, "B")  # every item disagrees, control items among them
    listed = [entry.dataset for entry in adjudicator_datasets(make_user("adjudicator"))]
    assert listed == [controlled]


def test_a_refused_action_of_the_training_page_is_in_its_problem_list(controlled, training_pool, annotator,
                                                                       organizer, client):
    """Not one line of run-together messages: each problem a row of the list the page opens at."""
    assign(controlled, [annotator], 1)
    client.force_login(organizer)
    response = client.post(reverse("organizer_training", args=[controlled.pk]),
                           {"action": "retry", "annotator": annotator.username}, HTTP_ACCEPT_LANGUAGE="pl")
    assert response.status_code == 422
    html = response.content.decode()
    listed = html[html.index('id="problem-list"'):]
    assert "1 problem; niczego nie zmieniono" in listed
    assert "nie rozpoczął(-ęła) jeszcze rundy treningowej" in listed[: listed.index("</section>")]
