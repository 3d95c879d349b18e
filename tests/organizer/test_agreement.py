"""Agreement in the application: `manage.py agreement` equals the scorer on the exports, the
organizer's page and the API endpoint (organizers only), the answered demo datasets."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse

from annotation.demo_answers import submit_demo_answers
from annotation.models import Annotation, Dataset
from annotation.results.agreement import agreement_report
from annotation.results.exporting import build_submission, jsonl_bytes
from scoring.subtasks import SUBTASKS
from tests.factories import make_dataset, make_user
from tests.organizer.conftest import import_sample

pytestmark = pytest.mark.django_db


def raters(count=3):
    return [make_user(username=f"rater{number}") for number in range(1, count + 1)]


def scorer_on_exports(dataset: Dataset, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    """`python -m scoring agreement` on the per-annotator export files of the dataset."""
    inputs = folder / "inputs.jsonl"
    inputs.write_bytes(jsonl_bytes(list(dataset.items.order_by("ordinal").values_list("payload", flat=True))))
    usernames = sorted(set(Annotation.objects.filter(item__dataset=dataset).values_list("annotator__username", flat=True)))
    files = []
    for username in usernames:
        submission = build_submission(dataset, User.objects.get(username=username))
        path = folder / submission.filename
        path.write_bytes(submission.to_bytes())
        files.append(str(path))
    return subprocess.run(
        [sys.executable, "-m", "scoring", "agreement", dataset.subtask, "--inputs", str(inputs), "--pred", *files, *extra],
        cwd=settings.BASE_DIR, capture_output=True, text=True,
    )


@pytest.mark.parametrize("subtask", tuple(SUBTASKS))
def test_manage_agreement_prints_what_the_scorer_prints_on_the_exports(subtask, tmp_path, capsys):
    dataset = import_sample(subtask)
    submit_demo_answers(dataset, raters())
    for extra in ([], ["--json"]):
        scorer = scorer_on_exports(dataset, tmp_path, *extra)
        assert scorer.returncode == 0, scorer.stderr
        assert scorer.stderr == ""
        call_command("agreement", dataset.name, *extra)
        assert capsys.readouterr().out == scorer.stdout
    figures = json.loads(scorer.stdout)
    assert figures["n_items"] > 0 and figures["reasons"] == {}


def test_demo_answers_disagree_realistically():
    dataset = import_sample("commas")
    submit_demo_answers(dataset, raters())
    report = agreement_report(dataset)
    assert 0.5 < report.figures["marker_alpha"] < 1
    assert report.disagreements and all(disagreement.kinds for disagreement in report.disagreements)
    assert [count for count, _ in report.answer_counts] == [0, 1, 2, 3]
    # A second call adds nothing.
    before = Annotation.objects.count()
    assert submit_demo_answers(dataset, list(User.objects.filter(username__startswith="rater"))) == 0
    assert Annotation.objects.count() == before


def test_load_demo_answers_the_demo_datasets_once(capsys):
    call_command("load_demo")
    answered = Dataset.objects.filter(name__startswith="demo-answered-")
    assert sorted(answered.values_list("subtask", flat=True)) == sorted(tuple(SUBTASKS))
    count = Annotation.objects.count()
    assert count > 0
    assert set(Annotation.objects.values_list("annotator__username", flat=True)) == {"rater1", "rater2", "rater3"}
    call_command("load_demo")
    assert Annotation.objects.count() == count
    for dataset in answered:
        figures = agreement_report(dataset).figures
        assert figures["n_items"] > 0
        assert any(isinstance(value, float) and value < 1 for value in figures.values()), dataset.name


# The page and the endpoint ------------------------------------------------------------------

@pytest.fixture
def answered_wsd():
    dataset = import_sample("wsd")
    submit_demo_answers(dataset, raters())
    return dataset


@pytest.mark.parametrize("role", ["annotator", "adjudicator"])
def test_annotators_and_adjudicators_are_refused(client, answered_wsd, role):
    client.force_login(make_user(role))
    assert client.get(reverse("organizer_agreement", args=[answered_wsd.pk])).status_code == 403
    assert client.get(reverse("api_dataset_agreement", args=[answered_wsd.pk])).status_code == 403


def test_anonymous_is_sent_to_log_in(client, answered_wsd):
    response = client.get(reverse("organizer_agreement", args=[answered_wsd.pk]))
    assert response.status_code == 302 and "login" in response["Location"]
    assert client.get(reverse("api_dataset_agreement", args=[answered_wsd.pk])).status_code in (401, 403)


def test_the_page_shows_figures_pairs_and_disagreements(client, answered_wsd):
    client.force_login(make_user("organizer"))
    response = client.get(reverse("organizer_agreement", args=[answered_wsd.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    report = response.context["report"]
    assert f"{report.figures['alpha']:.4f}" in page
    assert 'id="figure-fleiss_kappa"' in page
    assert [row.username for row in report.annotators] == ["rater1", "rater2", "rater3"]
    assert all(pair.common > 0 for row in report.annotators for pair in row.pairs)
    assert report.disagreements
    kind = report.kinds[0]
    narrowed = client.get(reverse("organizer_agreement", args=[answered_wsd.pk]), {"kind": kind}, HTTP_HX_REQUEST="true")
    assert narrowed.status_code == 200
    assert "<html" not in narrowed.content.decode()
    assert all(kind in disagreement.kinds for disagreement in narrowed.context["shown"])
    assert len(narrowed.context["shown"]) == sum(kind in d.kinds for d in report.disagreements)


def test_a_null_figure_shows_its_reason(client):
    dataset = make_dataset("wsd", [{"id": "w1", "reference_sentence": "[[TARGET]]a[[/TARGET]]",
                                    "candidates": {label: "[[TARGET]]a[[/TARGET]]" for label in "ABCD"}}])
    client.force_login(make_user("organizer"))
    response = client.get(reverse("organizer_agreement", args=[dataset.pk]))
    assert response.status_code == 200
    assert "no item has two valid answers" in response.content.decode()


def test_the_page_runs_a_bounded_number_of_queries(client, django_assert_max_num_queries):
    organizer = make_user("organizer")
    client.force_login(organizer)
    everyone = raters(4)
    small = import_sample("wsd", name="small")
    submit_demo_answers(small, everyone[:2])
    large = import_sample("coreference", name="large")
    submit_demo_answers(large, everyone)
    for dataset in (small, large):
        with django_assert_max_num_queries(8):
            assert client.get(reverse("organizer_agreement", args=[dataset.pk])).status_code == 200
        with django_assert_max_num_queries(8):
            assert client.get(reverse("api_dataset_agreement", args=[dataset.pk])).status_code == 200


def test_the_endpoint_serves_the_scorer_figures(client, answered_wsd):
    client.force_login(make_user("organizer"))
    response = client.get(reverse("api_dataset_agreement", args=[answered_wsd.pk]))
    assert response.status_code == 200
    body = response.json()
    assert body["figures"] == json.loads(json.dumps(agreement_report(answered_wsd).figures))
    assert body["subtask"] == "wsd"
    assert sum(row["items"] for row in body["answer_counts"]) == answered_wsd.items.count()
    assert [row["username"] for row in body["annotators"]] == ["rater1", "rater2", "rater3"]
    assert body["disagreements"] > 0


def test_the_endpoint_is_in_the_openapi_schema(client):
    client.force_login(make_user("organizer"))
    schema = client.get(reverse("api_schema"), {"format": "json"}).json()
    assert "/api/datasets/{id}/agreement/" in schema["paths"]


# Disagreements and their kinds --------------------------------------------------------------

def answer_items(subtask, records, answers_by_user):
    """A dataset of ``records`` whose users submitted ``{username: {external id: answer}}``."""
    dataset = make_dataset(subtask, records)
    items = {item.external_id: item for item in dataset.items.all()}
    for username, answers in answers_by_user.items():
        user = make_user(username=username)
        Annotation.objects.bulk_create(
            Annotation(item=items[item_id], annotator=user, answer=answer, status=Annotation.Status.SUBMITTED)
            for item_id, answer in answers.items()
        )
    return dataset


def wsd_record(item_id):
    return {"id": item_id, "reference_sentence": "[[TARGET]]a[[/TARGET]]",
            "candidates": {label: "[[TARGET]]a[[/TARGET]]" for label in "ABCD"}}


def test_label_disagreements_by_label_pair():
    dataset = answer_items("wsd", [wsd_record("w1"), wsd_record("w2"), wsd_record("w3")], {
        "ala": {"w1": {"answer": "A"}, "w2": {"answer": "A"}, "w3": {"answer": "C"}},
        "bartek": {"w1": {"answer": "A"}, "w2": {"answer": "B"}, "w3": {"answer": "D"}},
        "celina": {"w1": {"answer": "A"}, "w2": {"answer": "C"}},
    })
    report = agreement_report(dataset)
    assert [(d.item.external_id, d.kinds) for d in report.disagreements] == [
        ("w2", ["A/B", "A/C", "B/C"]), ("w3", ["C/D"])]
    assert report.answer_counts == [(0, 0), (1, 0), (2, 1), (3, 2)]
    ala = report.annotators[0]
    assert [(cell.other, cell.common, cell.value) for cell in ala.pairs] == [("bartek", 3, 1 / 3), ("celina", 2, 1 / 2)]
    assert ala.weighted_mean == pytest.approx((1 / 3 * 3 + 1 / 2 * 2) / 5)


def test_commas_disagreements_by_marker():
    record = {"id": "c1", "sentence_with_positions": "a [1] b [2] c [3] d"}
    dataset = answer_items("commas", [record], {
        "ala": {"c1": {"commas": [1], "optional": [3]}},
        "bartek": {"c1": {"commas": [1, 2], "optional": []}},
    })
    assert [d.kinds for d in agreement_report(dataset).disagreements] == [["[2]", "[3]"]]


def test_discourse_disagreements_by_relation():
    record = {"id": "p1", "document_id": "d", "passage_id": "d:1", "discourse_units": [
        {"du_id": du, "orig_id": du, "sent_id": du, "parts": [{"order": 0, "text": du}]} for du in ("1", "2", "3")]}
    first = {"discourse_units": [{"du_id": "1", "head": None, "relation": None},
                                 {"du_id": "2", "head": "1", "relation": "Cause"},
                                 {"du_id": "3", "head": "2", "relation": "Elaboration"}]}
    second = {"discourse_units": [{"du_id": "1", "head": None, "relation": None},
                                  {"du_id": "2", "head": "1", "relation": "Cause"},
                                  {"du_id": "3", "head": "1", "relation": "Contrast"}]}
    dataset = answer_items("discourse", [record], {"ala": {"p1": first}, "bartek": {"p1": second}})
    report = agreement_report(dataset)
    assert [d.kinds for d in report.disagreements] == [["Contrast", "Elaboration"]]
    # LAS of ala with bartek as reference: DU 2 right, DU 3 wrong.
    assert report.annotators[0].pairs[0].value == 0.5


def test_morphosyntax_disagreements_by_label_and_correction():
    records = [{"id": "m1", "sentence": "Ala ma kot."}, {"id": "m2", "sentence": "Ala ma kota."}]
    dataset = answer_items("morphosyntax", records, {
        "ala": {"m1": {"answer": "NIEPOPRAWNE", "corrected_sentence": "Ala ma kota."},
                "m2": {"answer": "POPRAWNE", "corrected_sentence": ""}},
        "bartek": {"m1": {"answer": "NIEPOPRAWNE", "corrected_sentence": "Ala ma koty."},
                   "m2": {"answer": "NIEPOPRAWNE", "corrected_sentence": "Ala ma psa."}},
    })
    assert [d.kinds for d in agreement_report(dataset).disagreements] == [["correction"], ["POPRAWNE/NIEPOPRAWNE"]]


def test_gold_agreement_on_answered_items():
    dataset = make_dataset("wsd", [wsd_record("w1"), wsd_record("w2")],
                           gold=[{"id": "w1", "answer": "A"}, {"id": "w2", "answer": "B"}])
    items = {item.external_id: item for item in dataset.items.all()}
    user = make_user(username="ala")
    Annotation.objects.create(item=items["w1"], annotator=user, answer={"answer": "A"}, status=Annotation.Status.SUBMITTED)
    row = agreement_report(dataset).annotators[0]
    # macro-F1 over A-D on the one answered item: F1(A) = 1, the rest 0.
    assert (row.gold_score, row.gold_items) == (0.25, 1)
