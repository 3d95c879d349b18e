"""The gold audit: which items enter its queue, the decisions and their history, the audited
gold, the export, and who reaches it."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotation.answers.normalised import normalised_answer
from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets import auditing
from annotation.datasets.auditing import (
    BY_ANSWERS,
    BY_POSTERIOR,
    OPEN,
    answer_model_posteriors,
    audit_queue,
    audited_gold,
    decide,
    queue_entry,
)
from annotation.datasets.versions import dataset_version, version_key
from annotation.models import (
    Annotation,
    Assignment,
    Dataset,
    Flag,
    GoldAnswer,
    GoldAuditDecision,
    GoldVersion,
    TrainingAnswer,
    TrainingRound,
)
from annotation.results.formats import campaign_file
from annotation.results.report import campaign_report, dataset_report
from annotation.results.selectors import changes_since
from annotation.results.services import create_campaign, upload_model_submission
from annotation.training.selectors import control_accuracy
from scoring.subtasks import get_subtask
from tests.factories import assign_in_order, make_dataset, make_user

pytestmark = pytest.mark.django_db

WSD = get_subtask("wsd")


def wsd_record(item_id: str) -> dict:
    return {"id": item_id, "reference_sentence": "Zepsuł się [[TARGET]]zamek[[/TARGET]].",
            "candidates": {key: f"{key} [[TARGET]]zamek[[/TARGET]]." for key in "ABCD"}}


def text(label: str) -> str:
    return normalised_answer("wsd", {"answer": label})


def answer(item, annotator, label: str) -> Annotation:
    return Annotation.objects.create(item=item, annotator=annotator, answer={"answer": label},
                                     status=Annotation.Status.SUBMITTED, submitted_at=timezone.now(),
                                     normalised_answer=text(label))


@pytest.fixture
def annotators():
    return [make_user(username=f"ann{index}") for index in range(3)]


@pytest.fixture
def dataset(annotators):
    """Four wsd items, gold A each, three answers each: two of three say B (enters), one of
    three says B (does not), all three say A (does not), three differ (does not)."""
    ids = ["two-b", "one-b", "all-a", "differ"]
    data = make_dataset("wsd", [wsd_record(item_id) for item_id in ids],
                        [{"id": item_id, "answer": "A"} for item_id in ids], name="audit-wsd")
    items = {item.external_id: item for item in data.items.all()}
    for item_id, labels in {"two-b": "BBA", "one-b": "BAA", "all-a": "AAA", "differ": "ABC"}.items():
        for annotator, label in zip(annotators, labels):
            answer(items[item_id], annotator, label)
    return data


# Who enters


def test_two_of_three_agreeing_against_the_gold_enter_and_one_of_three_does_not(dataset):
    queue = audit_queue(dataset)
    assert [audited.external_id for audited in queue] == ["two-b"]
    entry = queue[0].entry
    assert (entry.answer, entry.agreeing, entry.submitted, entry.by) == (text("B"), 2, 3, BY_ANSWERS)
    assert queue[0].state == OPEN


def test_the_entry_rule_needs_more_than_half_and_at_least_two():
    gold = {"id": "x", "answer": "A"}
    assert queue_entry(WSD, gold, [text("B")]) is None  # one answer alone, though all of them
    assert queue_entry(WSD, gold, [text("B"), text("B"), text("A"), text("A")]) is None  # half, not more
    assert queue_entry(WSD, gold, [text("B"), text("B"), text("A")]).agreeing == 2
    assert queue_entry(WSD, gold, [text("B"), text("B")]).share == 1.0
    assert queue_entry(WSD, gold, [text("A"), text("A")]) is None  # agreeing with the gold


def test_answers_agree_after_the_scorers_normaliser():
    # Commas: marker lists in any order and with repeats are one set.
    gold = {"id": "x", "commas": [3], "optional": []}
    answers = [normalised_answer("commas", {"commas": [4, 3]}), normalised_answer("commas", {"commas": [3, 4, 4]}),
               normalised_answer("commas", {"commas": [3]})]
    assert answers[0] == answers[1]
    assert queue_entry(get_subtask("commas"), gold, answers).agreeing == 2


def test_posteriors_at_or_over_095_for_an_answer_against_the_gold_enter():
    gold = {"id": "x", "answer": "A"}
    answers = [text("B"), text("A"), text("C")]
    assert queue_entry(WSD, gold, answers) is None
    assert queue_entry(WSD, gold, answers, {text("B"): 0.9499, text("A"): 0.0501}) is None
    entry = queue_entry(WSD, gold, answers, {text("B"): 0.95, text("A"): 0.05})
    assert (entry.answer, entry.by, entry.posterior, entry.agreeing) == (text("B"), BY_POSTERIOR, 0.95, 1)
    # A posterior for the gold's own answer is no reason to audit it.
    assert queue_entry(WSD, gold, answers, {text("A"): 0.99}) is None


def test_posteriors_by_item_id_reach_the_queue(dataset):
    posteriors = {"differ": {text("C"): 0.97, text("A"): 0.03}}
    queue = audit_queue(dataset, posteriors=posteriors)
    assert [(audited.external_id, audited.entry.by) for audited in queue] == [("two-b", BY_ANSWERS), ("differ", BY_POSTERIOR)]


def test_most_unanimous_first(dataset, annotators):
    item = dataset.items.get(external_id="all-a")
    # Its gold said to be D: all three answers (A) stand against it, more unanimous than two of three.
    item.gold.payload = {"id": "all-a", "answer": "D"}
    item.gold.save()
    assert [audited.external_id for audited in audit_queue(dataset)] == ["all-a", "two-b"]


def test_a_control_pool_item_enters(dataset, annotators):
    pool = make_dataset("wsd", [wsd_record("control-1"), wsd_record("control-2")],
                        [{"id": "control-1", "answer": "C"}, {"id": "control-2", "answer": "C"}], name="audit-wsd-control")
    Dataset.objects.filter(pk=pool.pk).update(pool_of=dataset, pool_kind=Dataset.PoolKind.CONTROL)
    pool.refresh_from_db()
    first, second = pool.items.order_by("ordinal")
    for annotator in annotators:
        answer(first, annotator, "D")
    answer(second, annotators[0], "D")
    assert [audited.external_id for audited in audit_queue(pool)] == ["control-1"]


def test_a_training_pool_item_enters_on_each_annotators_latest_answer(dataset, annotators):
    pool = make_dataset("wsd", [wsd_record("train-1")], [{"id": "train-1", "answer": "C"}], name="audit-wsd-training")
    Dataset.objects.filter(pk=pool.pk).update(pool_of=dataset, pool_kind=Dataset.PoolKind.TRAINING)
    pool.refresh_from_db()
    item = pool.items.get()
    for attempt, labels in ((1, "BB"), (2, "CB")):
        for annotator, label in zip(annotators, labels):
            round_ = TrainingRound.objects.get_or_create(dataset=dataset, annotator=annotator, attempt=attempt)[0]
            TrainingAnswer.objects.create(round=round_, item=item, answer={"answer": label},
                                          correctness=float(label == "C"))
    # The first round: B, B (would enter); the latest: C, B (does not).
    assert audit_queue(pool) == []
    round_ = TrainingRound.objects.create(dataset=dataset, annotator=annotators[0], attempt=3)
    TrainingAnswer.objects.create(round=round_, item=item, answer={"answer": "B"}, correctness=0.0)
    assert [audited.external_id for audited in audit_queue(pool)] == ["train-1"]


# Decisions and their history


@pytest.fixture
def organizer():
    return make_user("organizer", username="olga")


def test_the_gold_stands_with_a_note(dataset, organizer):
    item = dataset.items.get(external_id="two-b")
    decision = decide(item=item, by=organizer, kind="stands", note=" B is a near miss ")
    assert (decision.kind, decision.note, decision.gold_version) == ("stands", "B is a near miss", None)
    audited = audit_queue(dataset)[0]
    assert (audited.state, audited.current_gold) == ("stands", {"id": "two-b", "answer": "A"})
    assert audit_queue(dataset, state=OPEN) == []
    assert audited_gold(dataset, [item.gold.payload]).lines == {"two-b": {"id": "two-b", "answer": "A"}}


def test_a_correction_is_a_new_version_and_the_old_is_kept(dataset, organizer):
    item = dataset.items.get(external_id="two-b")
    decide(item=item, by=organizer, kind="corrected", note="B is the sense", gold={"id": "two-b", "answer": "B"})
    decide(item=item, by=organizer, kind="corrected", note="C after all", gold={"id": "two-b", "answer": "C"})
    versions = list(GoldVersion.objects.filter(item=item).order_by("version").values_list(
        "version", "payload", "reason", "author__username"))
    assert versions == [(2, {"id": "two-b", "answer": "B"}, "B is the sense", "olga"),
                        (3, {"id": "two-b", "answer": "C"}, "C after all", "olga")]
    item.gold.refresh_from_db()
    assert item.gold.payload == {"id": "two-b", "answer": "A"}  # the original stays the benchmark's
    history = list(GoldAuditDecision.objects.filter(item=item).order_by("decided_at", "pk").values_list(
        "kind", "gold_version__version"))
    assert history == [("corrected", 2), ("corrected", 3)]
    assert audit_queue(dataset)[0].current_gold == {"id": "two-b", "answer": "C"}
    # A later "stands" keeps the gold in force, the corrected one.
    decide(item=item, by=organizer, kind="stands", note="checked again")
    gold = audited_gold(dataset, [item.gold.payload])
    assert (gold.lines, gold.audited, gold.corrected, gold.withdrawn) == ({"two-b": {"id": "two-b", "answer": "C"}}, 1, 0, 0)


def test_a_withdrawn_item_leaves_the_audited_gold_only(dataset, organizer):
    item = dataset.items.get(external_id="two-b")
    decide(item=item, by=organizer, kind="withdrawn", note="two senses fit")
    item.refresh_from_db()
    assert item.withdrawn_at is None  # still in the campaign: only the audited gold leaves it out
    gold = audited_gold(dataset, [{"id": "two-b", "answer": "A"}, {"id": "one-b", "answer": "A"}])
    assert (sorted(gold.lines), gold.audited, gold.corrected, gold.withdrawn) == (["one-b"], 1, 0, 1)


@pytest.mark.parametrize("kind, note, gold, code", [
    ("stands", "  ", None, "required"),
    ("guess", "why", None, "audit_decision"),
    ("corrected", "why", {"id": "two-b", "answer": "E"}, "enum"),
    ("corrected", "why", {"id": "one-b", "answer": "B"}, "gold_id"),
    ("corrected", "why", {"id": "two-b", "answer": "A"}, "gold_unchanged"),
    ("corrected", "why", ["B"], "gold_line"),
    ("stands", "a\x00b", None, "unstorable"),
])
def test_a_bad_decision_is_refused_and_changes_nothing(dataset, organizer, kind, note, gold, code):
    item = dataset.items.get(external_id="two-b")
    with pytest.raises(Refused) as refused:
        decide(item=item, by=organizer, kind=kind, note=note, gold=gold)
    assert code in [problem.code for problem in refused.value.problems]
    assert not GoldAuditDecision.objects.exists() and not GoldVersion.objects.exists()


def test_an_item_outside_the_queue_takes_no_decision(dataset, organizer):
    with pytest.raises(Refused) as refused:
        decide(item=dataset.items.get(external_id="one-b"), by=organizer, kind="stands", note="fine")
    assert refused.value.problems[0].code == "not_in_audit"


# The command


def test_the_command_exports_the_decisions_with_their_reasons(dataset, organizer, tmp_path, capsys):
    item = dataset.items.get(external_id="two-b")
    decide(item=item, by=organizer, kind="corrected", note="B is the sense", gold={"id": "two-b", "answer": "B"})
    path = tmp_path / "decisions.jsonl"
    call_command("gold_audit", "audit-wsd", "--export", str(path))
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [{key: record[key] for key in ("dataset", "pool", "id", "decision", "reason", "original_gold", "gold",
                                          "gold_version", "by")} for record in records] == [
        {"dataset": "audit-wsd", "pool": None, "id": "two-b", "decision": "corrected", "reason": "B is the sense",
         "original_gold": {"id": "two-b", "answer": "A"}, "gold": {"id": "two-b", "answer": "B"}, "gold_version": 2,
         "by": "olga"}]
    call_command("gold_audit", "audit-wsd", "--json")
    queue = json.loads(capsys.readouterr().out.splitlines()[-1])
    # Dawid–Skene fitted to four items trusts ann2 wholly: "differ" enters by its posterior of C.
    assert [(row["id"], row["state"], row["agreeing"], row["submitted"], row["entered_by"]) for row in queue["dataset"]] == [
        ("two-b", "corrected", 2, 3, "answers"), ("differ", "open", 1, 3, "posterior")]


# Pages and API: who reaches the audit


def allow_adjudicators(dataset, revealed: bool = True) -> None:
    Dataset.objects.filter(pk=dataset.pk).update(adjudicators_audit_gold=True, gold_revealed=revealed)


def test_the_organizers_page_lists_the_item_with_answers_gold_and_flags(client, dataset, organizer, annotators):
    item = dataset.items.get(external_id="two-b")
    Flag.objects.create(item=item, raised_by=annotators[0], comment="sens B pasuje lepiej")
    client.force_login(organizer)
    page = client.get(reverse("gold_audit", args=[dataset.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert "two-b" in body and "one-b" not in body
    assert "sens B pasuje lepiej" in body
    assert reverse("organizer_item", args=[dataset.pk, item.pk]) in body


def test_a_decision_posted_on_the_page_is_recorded_and_a_bad_one_says_why(client, dataset, organizer):
    item = dataset.items.get(external_id="two-b")
    client.force_login(organizer)
    url = reverse("gold_audit", args=[dataset.pk])
    refused = client.post(url, {"item": item.pk, "kind": "corrected", "note": "B", "gold": '{"id": "two-b", "answer": "Z"}'})
    assert refused.status_code == 422
    assert not GoldVersion.objects.exists()
    done = client.post(url, {"item": item.pk, "kind": "corrected", "note": "B", "gold": '{"id": "two-b", "answer": "B"}'})
    assert done.status_code == 302 and done.url.endswith(f"#audit-{item.pk}")
    assert GoldVersion.objects.get().payload == {"id": "two-b", "answer": "B"}
    assert "two-b" in client.get(url, {"state": "corrected"}).content.decode()
    assert "two-b" not in client.get(url, {"state": "open"}).content.decode()


def test_the_page_reads_a_fixed_number_of_queries(client, dataset, organizer, annotators, django_assert_max_num_queries):
    client.force_login(organizer)
    url = reverse("gold_audit", args=[dataset.pk])
    client.get(url)
    with django_assert_max_num_queries(14):
        client.get(url)
    more = make_dataset("wsd", [wsd_record(f"more-{index}") for index in range(30)],
                        [{"id": f"more-{index}", "answer": "A"} for index in range(30)], name="audit-wsd-more")
    for item in more.items.all():
        for annotator in annotators:
            answer(item, annotator, "C")
    more_url = reverse("gold_audit", args=[more.pk])
    # A first page fits the Dawid–Skene model, reading the data version before and after the fit.
    with django_assert_max_num_queries(17):
        assert client.get(more_url).status_code == 200
    with django_assert_max_num_queries(14):
        assert client.get(more_url).status_code == 200


def test_annotators_never_reach_the_audit(client, dataset, annotators):
    allow_adjudicators(dataset)
    client.force_login(annotators[0])
    item = dataset.items.get(external_id="two-b")
    assert client.get(reverse("gold_audit", args=[dataset.pk])).status_code == 403
    assert client.post(reverse("gold_audit", args=[dataset.pk]), {"item": item.pk, "kind": "stands", "note": "x"}).status_code == 403
    assert client.get(reverse("api_gold_audit", args=[dataset.pk])).status_code == 403
    assert client.post(reverse("api_gold_audit_decision", args=[item.pk]), {"kind": "stands", "note": "x"}).status_code == 403
    assert not GoldAuditDecision.objects.exists()


def test_adjudicators_audit_only_where_allowed_and_the_gold_revealed(client, dataset):
    adjudicator = make_user("adjudicator", username="adam")
    client.force_login(adjudicator)
    url = reverse("gold_audit", args=[dataset.pk])
    assert client.get(url).status_code == 403
    allow_adjudicators(dataset, revealed=False)
    assert client.get(url).status_code == 403
    assert "gold-audits" not in client.get(reverse("adjudicate_home")).content.decode()
    allow_adjudicators(dataset)
    assert client.get(url).status_code == 200
    home = client.get(reverse("adjudicate_home")).content.decode()
    assert url in home
    item = dataset.items.get(external_id="two-b")
    assert client.post(url, {"item": item.pk, "kind": "stands", "note": "A is right"}).status_code == 302
    assert GoldAuditDecision.objects.get().decided_by == adjudicator


def test_the_api_lists_the_queue_and_records_a_decision(client, dataset, organizer):
    client.force_login(organizer)
    listed = client.get(reverse("api_gold_audit", args=[dataset.pk])).json()
    assert listed["count"] == 2  # and "differ", by Dawid–Skene's posterior (fitted to four items, it trusts ann2)
    row = listed["results"][0]
    assert (row["id"], row["state"], row["agreeing"], row["submitted"], row["entered_by"], row["answer"]) == (
        "two-b", "open", 2, 3, "answers", {"answer": "B"})
    item = dataset.items.get(external_id="two-b")
    url = reverse("api_gold_audit_decision", args=[item.pk])
    refused = client.post(url, {"kind": "corrected", "note": "B", "gold": {"id": "two-b", "answer": "A"}},
                          content_type="application/json")
    assert refused.status_code == 422 and refused.json()["codes"] == ["gold_unchanged"]
    made = client.post(url, {"kind": "corrected", "note": "B", "gold": {"id": "two-b", "answer": "B"}},
                       content_type="application/json")
    assert made.status_code == 201
    assert (made.json()["kind"], made.json()["gold_version"], made.json()["by"]) == ("corrected", 2, "olga")
    listed = client.get(reverse("api_gold_audit", args=[dataset.pk]), {"state": "corrected"}).json()
    assert listed["results"][0]["gold_in_force"] == {"id": "two-b", "answer": "B"}


# Which gold counts where: the report's two columns, worked by hand


def commas_record(item_id: str) -> dict:
    return {"id": item_id, "sentence_with_positions": "Ala [1] ma [2] kota [3] i psa."}


@pytest.fixture
def audited_commas(organizer):
    """Gold c1 -, c2 -, c3 -, c4 [2]. ann1: -, -, [1], -; ann2: [2], -, [1], -; a model: -, -, -, -.
    c3 (both [1]) and c4 (both none) stand against the gold; c4's gold is corrected to none, c3
    is withdrawn from the audited gold."""
    ids = ["c1", "c2", "c3", "c4"]
    gold = [{"id": item_id, "commas": commas, "optional": []} for item_id, commas in zip(ids, [[], [], [], [2]])]
    dataset = make_dataset("commas", [commas_record(item_id) for item_id in ids], gold, name="audit-commas")
    items = {item.external_id: item for item in dataset.items.all()}
    for name, answers in (("ann1", [[], [], [1], []]), ("ann2", [[2], [], [1], []])):
        annotator = make_user(username=name)
        assign_in_order(dataset, annotator)
        for item_id, commas in zip(ids, answers):
            Annotation.objects.create(item=items[item_id], annotator=annotator, answer={"commas": commas, "optional": []},
                                      status=Annotation.Status.SUBMITTED, submitted_at=timezone.now(),
                                      normalised_answer=normalised_answer("commas", {"commas": commas, "optional": []}))
    model = "".join(json.dumps({"id": item_id, "commas": [], "optional": []}) + "\n" for item_id in ids)
    upload_model_submission(dataset=dataset, name="m", submission=SourceFile("m.jsonl", model.encode()))
    assert [audited.external_id for audited in audit_queue(dataset)] == ["c3", "c4"]
    decide(item=items["c4"], by=organizer, kind="corrected", note="no comma before i",
           gold={"id": "c4", "commas": [], "optional": []})
    decide(item=items["c3"], by=organizer, kind="withdrawn", note="two readings")
    return dataset


def test_the_report_gives_the_original_gold_and_the_audited_gold_side_by_side(audited_commas):
    report = dataset_report(audited_commas, resamples=10, seed=0, test_rounds=10)
    rows = {row["source"]: row for row in report["sources"]}
    # Original gold (4 items): ann1 right on c1, c2 (0.5); ann2 on c2 (0.25); majority (no
    # majority on c1: missing) on c2 (0.25); the model on c1, c2, c3 (0.75).
    # Audited gold (c1, c2, c4 with none): ann1 all three (1.0); ann2 c2, c4 (2/3); majority
    # c2, c4 (2/3); the model all three (1.0).
    sources = ("annotator:ann1", "annotator:ann2", "majority", "model:m")
    assert [(rows[source]["score"], rows[source]["n_scored"]) for source in sources] == [
        (0.5, 4), (0.25, 4), (0.25, 4), (0.75, 4)]
    audited = {source: (rows[source]["score_audited"], rows[source]["n_scored_audited"]) for source in sources}
    assert audited["annotator:ann1"] == (1.0, 3)
    assert audited["annotator:ann2"] == (pytest.approx(2 / 3), 3)
    assert audited["majority"] == (pytest.approx(2 / 3), 3)
    assert audited["model:m"] == (1.0, 3)
    gold_audit = report["gold_audit"]
    assert (gold_audit["n_audited"], gold_audit["n_corrected"], gold_audit["n_withdrawn"], gold_audit["n_gold"]) == (2, 1, 1, 3)
    assert report["mean_annotator"]["mean"] == pytest.approx(0.375)
    assert gold_audit["mean_annotator"] == pytest.approx(5 / 6)
    beside = next(comparison for comparison in report["comparisons"] if comparison["human"] == "majority")
    assert (beside["score_human"], beside["score_model"]) == (0.25, 0.75)
    assert (beside["score_human_audited"], beside["score_model_audited"]) == (pytest.approx(2 / 3), 1.0)
    assert "audited gold" in report["procedure"]["control_gold"]


def test_the_campaign_table_and_its_downloads_add_the_audited_gold(audited_commas, organizer):
    campaign = create_campaign(name="audit-campaign", datasets=[audited_commas], created_by=organizer,
                               human_source="majority")
    table = campaign_report(campaign, resamples=10, seed=0, test_rounds=10)
    row = next(row for row in table["rows"] if row["subtask"] == "commas")
    assert row["gold_audit"] == {"n_audited": 2, "n_corrected": 1, "n_withdrawn": 1}
    assert (row["cells"]["human source"]["score"], row["cells"]["human source"]["score_audited"]) == (0.25, pytest.approx(2 / 3))
    assert row["cells"]["mean annotator"]["score_audited"] == pytest.approx(5 / 6)
    assert (row["cells"]["model:m"]["score"], row["cells"]["model:m"]["score_audited"]) == (0.75, 1.0)
    lines = list(csv.DictReader(io.StringIO(campaign_file(table, "csv"))))
    human = next(line for line in lines if line["subtask"] == "commas" and line["column"] == "human source")
    assert (float(human["score"]), float(human["score_audited"])) == (0.25, pytest.approx(2 / 3))
    assert (human["n_audited"], human["n_corrected"], human["n_withdrawn"]) == ("2", "1", "1")
    # Markdown's cells (in percent, as the headline) add the audited gold; TeX's cells are the
    # scores alone, its notes the audit's counts.
    assert "audited gold 66.7" in campaign_file(table, "md")
    assert "2 audited, 1 corrected, 1 withdrawn" in campaign_file(table, "tex")


# Item difficulty, worked by hand


def test_item_difficulty_per_item_and_the_items_only_the_models_get_right(audited_commas):
    difficulty = dataset_report(audited_commas, resamples=0, test_rounds=0)["item_difficulty"]
    # On the original gold: c1 ann1 right, ann2 wrong (0.5), the model right; c2 all right;
    # c3 both annotators wrong, the model right; c4 everyone wrong.
    assert difficulty["figure"] == "exact_set_accuracy" and difficulty["models"] == ["m"]
    assert [(item["id"], item["n_annotators"], item["human"], item["models"]) for item in difficulty["items"]] == [
        ("c1", 2, 0.5, {"m": 1.0}), ("c2", 2, 1.0, {"m": 1.0}), ("c3", 2, 0.0, {"m": 1.0}), ("c4", 2, 0.0, {"m": 0.0})]
    assert difficulty["models_only"] == {"count": 1, "ids": ["c3"], "item_pks": [audited_commas.items.get(external_id="c3").pk]}
    assert difficulty["humans_only"] == {"count": 0, "ids": [], "item_pks": []}


def test_the_items_every_annotator_gets_right_and_every_model_wrong_are_listed_and_linked(client, dataset, organizer):
    model = "".join(json.dumps({"id": item_id, "answer": label}) + "\n"
                    for item_id, label in (("two-b", "A"), ("one-b", "A"), ("all-a", "B"), ("differ", "A")))
    upload_model_submission(dataset=dataset, name="m", submission=SourceFile("m.jsonl", model.encode()))
    difficulty = dataset_report(dataset, resamples=0, test_rounds=0)["item_difficulty"]
    assert [(item["id"], item["human"], item["models"]["m"]) for item in difficulty["items"]] == [
        ("two-b", pytest.approx(1 / 3), 1.0), ("one-b", pytest.approx(2 / 3), 1.0), ("all-a", 1.0, 0.0),
        ("differ", pytest.approx(1 / 3), 1.0)]
    all_a = dataset.items.get(external_id="all-a")
    assert difficulty["humans_only"] == {"count": 1, "ids": ["all-a"], "item_pks": [all_a.pk]}
    assert difficulty["models_only"]["count"] == 0
    client.force_login(organizer)
    page = client.get(reverse("organizer_report", args=[dataset.pk])).content.decode()
    assert reverse("organizer_item", args=[dataset.pk, all_a.pk]) in page
    download = client.get(reverse("organizer_report", args=[dataset.pk]), {"difficulty": 1})
    assert download["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert rows[0] == ["id", "n_annotators", "human", "model:m"]
    assert rows[3] == ["all-a", "3", "1.0", "0.0"]
    assert 'id="plot-difficulty"' in page and "1 items every annotator got right and every model wrong" in page


def test_while_the_audit_changes_no_gold_the_audited_scores_are_the_headline(dataset, organizer):
    decide(item=dataset.items.get(external_id="two-b"), by=organizer, kind="stands", note="A it is")
    report = dataset_report(dataset, resamples=0, test_rounds=0)
    available = [row for row in report["sources"] if row.get("available")]
    assert available and all((row["score_audited"], row["n_scored_audited"]) == (row["score"], row["n_scored"])
                             for row in available)
    assert (report["gold_audit"]["n_audited"], report["gold_audit"]["n_corrected"]) == (1, 0)
    assert report["gold_audit"]["mean_annotator"] == report["mean_annotator"]["mean"]


def test_the_item_browser_filters_by_the_audit_states(client, dataset, organizer, annotators):
    item = dataset.items.get(external_id="all-a")
    GoldAnswer.objects.filter(item=item).update(payload={"id": "all-a", "answer": "D"})
    decide(item=dataset.items.get(external_id="two-b"), by=organizer, kind="withdrawn", note="two senses")
    client.force_login(organizer)

    def listed(state):
        page = client.get(reverse("organizer_items", args=[dataset.pk]), {"state": state})
        return [entry.external_id for entry in page.context["page"].object_list]

    # "differ" by Dawid–Skene's posterior (fitted to four items, it trusts ann2 wholly).
    assert listed("audit_open") == ["all-a", "differ"]
    assert listed("audit_withdrawn") == ["two-b"]
    assert listed("audit_stands") == [] and listed("audit_corrected") == []
    decide(item=item, by=organizer, kind="corrected", note="A", gold={"id": "all-a", "answer": "A"})
    decide(item=item, by=organizer, kind="stands", note="A after all")
    assert listed("audit_stands") == ["all-a"] and listed("audit_corrected") == [] and listed("audit_open") == ["differ"]


def test_control_accuracy_is_scored_on_the_audited_gold(dataset, annotators, organizer):
    pool = make_dataset("wsd", [wsd_record("control-1"), wsd_record("control-2")],
                        [{"id": "control-1", "answer": "C"}, {"id": "control-2", "answer": "C"}], name="audit-wsd-control")
    Dataset.objects.filter(pk=pool.pk).update(pool_of=dataset, pool_kind=Dataset.PoolKind.CONTROL)
    first, second = pool.items.order_by("ordinal")
    for annotator in annotators[:2]:
        for position, (item, label) in enumerate(((first, "D"), (second, "C")), start=100):
            Assignment.objects.create(dataset=dataset, item=item, annotator=annotator, position=position)
            answer(item, annotator, label)

    def accuracy():
        return {line.annotator: line.current for line in control_accuracy(dataset)}

    assert accuracy() == {"ann0": 0.5, "ann1": 0.5}
    decide(item=first, by=organizer, kind="corrected", note="D is the sense", gold={"id": "control-1", "answer": "D"})
    assert accuracy() == {"ann0": 1.0, "ann1": 1.0}
    decide(item=first, by=organizer, kind="withdrawn", note="unclear after all")
    assert accuracy() == {"ann0": 1.0, "ann1": 1.0}  # only control-2 counts: right
    assert [line.correctness for line in control_accuracy(dataset)] == [[1.0], [1.0]]


# The Dawid–Skene posteriors in the queue (page, API, command, the item browser)


@pytest.fixture
def lone_answer(annotators):
    """Twenty wsd items the three annotators answer alike, each label five times, gold the
    same; and one item ann0 alone answers, B against the gold's A: one answer never enters by
    the answers, but ann0 has never erred, so Dawid–Skene gives B a posterior over 0.95."""
    labels = "ABCD" * 5
    records = [wsd_record(f"agreed-{index}") for index in range(len(labels))] + [wsd_record("lone-b")]
    gold = [{"id": f"agreed-{index}", "answer": label} for index, label in enumerate(labels)]
    data = make_dataset("wsd", records, [*gold, {"id": "lone-b", "answer": "A"}], name="audit-wsd-lone")
    items = {item.external_id: item for item in data.items.all()}
    for index, label in enumerate(labels):
        for annotator in annotators:
            answer(items[f"agreed-{index}"], annotator, label)
    answer(items["lone-b"], annotators[0], "B")
    return data


def test_the_dawid_skene_posterior_brings_an_item_into_the_queue(lone_answer):
    assert audit_queue(lone_answer) == []  # by the answers alone: nothing
    posteriors = answer_model_posteriors(lone_answer)
    assert set(posteriors["lone-b"]) == {text("B")}  # the gold's own answer is no candidate against it
    assert posteriors["agreed-0"] == {}
    (audited,) = audit_queue(lone_answer, posteriors)
    assert (audited.external_id, audited.entry.by, audited.entry.agreeing) == ("lone-b", BY_POSTERIOR, 1)
    assert audited.entry.posterior == posteriors["lone-b"][text("B")] >= 0.95


def test_the_page_the_api_the_command_and_the_browser_pass_the_posteriors(client, lone_answer, organizer, capsys):
    client.force_login(organizer)
    assert "lone-b" in client.get(reverse("gold_audit", args=[lone_answer.pk])).content.decode()
    (row,) = client.get(reverse("api_gold_audit", args=[lone_answer.pk])).json()["results"]
    assert (row["id"], row["entered_by"], row["answer"]) == ("lone-b", "posterior", {"answer": "B"})
    assert row["posterior"] >= 0.95
    call_command("gold_audit", "audit-wsd-lone", "--json")
    queue = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert [(row["id"], row["entered_by"]) for row in queue["dataset"]] == [("lone-b", "posterior")]
    browsed = client.get(reverse("organizer_items", args=[lone_answer.pk]), {"state": "audit_open"}).content.decode()
    assert "lone-b" in browsed and "agreed-0" not in browsed


def test_the_posteriors_are_fitted_once_per_data_version(client, lone_answer, annotators, organizer, monkeypatch):
    fits = []
    fit = auditing.answer_posteriors
    monkeypatch.setattr(auditing, "answer_posteriors", lambda *args: fits.append(args) or fit(*args))
    client.force_login(organizer)
    url = reverse("gold_audit", args=[lone_answer.pk])
    for _ in range(2):
        assert "lone-b" in client.get(url).content.decode()
    assert client.get(reverse("api_gold_audit", args=[lone_answer.pk])).json()["results"][0]["id"] == "lone-b"
    assert len(fits) == 1
    # A decision changes the report's data version, not the fit's: no refit.
    before = dataset_version(lone_answer)
    item = lone_answer.items.get(external_id="lone-b")
    GoldAuditDecision.objects.create(item=item, kind="stands", note="A is the sense", decided_by=organizer)
    assert version_key(dataset_version(lone_answer)) != version_key(before)
    assert changes_since(before, dataset_version(lone_answer), [lone_answer.pk]) == ["new decisions of the gold audit"]
    assert "lone-b" in client.get(url).content.decode() and len(fits) == 1
    # The two others answer A, the gold's: the answers changed, the page refits and B no longer
    # stands against the gold (the item stays listed as decided, entered by nothing).
    for annotator in annotators[1:]:
        answer(item, annotator, "A")
    (row,) = client.get(reverse("api_gold_audit", args=[lone_answer.pk])).json()["results"]
    assert len(fits) == 2 and (row["id"], row["entered_by"], row["state"]) == ("lone-b", None, "stands")
    client.get(url)
    assert len(fits) == 2


def test_an_item_entered_by_its_posterior_is_decided(client, lone_answer, organizer):
    item = lone_answer.items.get(external_id="lone-b")
    client.force_login(organizer)
    response = client.post(reverse("gold_audit", args=[lone_answer.pk]), {"item": item.pk, "kind": "corrected",
                                                                          "note": "B is the sense",
                                                                          "gold": json.dumps({"id": "lone-b", "answer": "B"})})
    assert response.status_code == 302
    (decision,) = GoldAuditDecision.objects.filter(item=item)
    assert (decision.kind, decision.gold_version.payload) == ("corrected", {"id": "lone-b", "answer": "B"})
    agreed = lone_answer.items.get(external_id="agreed-0")
    with pytest.raises(Refused):  # in the queue neither by its answers nor by a posterior
        decide(item=agreed, by=organizer, kind="stands", note="right")


def test_no_posteriors_where_the_subtask_does_not_offer_dawid_skene():
    numerals = make_dataset("numerals", [{"id": "n1", "sentence": "Mam [[20]] lat."}], [{"id": "n1", "answer": "dwadzieścia"}],
                            name="audit-numerals")
    assert answer_model_posteriors(numerals) is None
