import json
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.core.errors import NotExportable
from annotation.datasets.assigning import assign
from annotation.models import Annotation, Assignment, Dataset, GoldAnswer, Item
from annotation.results.exporting import build_submission
from scoring.subtasks import get_subtask
from tests.factories import make_user
from tests.organizer.conftest import import_sample, sample_files, submit_answers

pytestmark = pytest.mark.django_db


def scoring_validate(subtask: str, path) -> subprocess.CompletedProcess:
    inputs, _gold = sample_files(subtask)
    return subprocess.run(
        [sys.executable, "-m", "scoring", "validate", subtask, str(path), "--partial", "--inputs", str(inputs)],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_export_of_every_subtask_validates_with_the_scoring_cli(subtask, tmp_path, capsys):
    dataset = import_sample(subtask)
    annotators = [make_user() for _ in range(3)]
    assign(dataset, annotators, 2)
    annotator = annotators[0]
    submitted = submit_answers(dataset, annotator, every=2)
    draft_item = Assignment.objects.filter(dataset=dataset, annotator=annotator).exclude(
        item__in=[annotation.item for annotation in submitted]
    ).first().item
    Annotation.objects.create(item=draft_item, annotator=annotator, answer={}, status="draft")
    out = tmp_path / "submission.jsonl"

    call_command("export_submission", dataset.name, "--source", f"annotator:{annotator.username}", "-o", str(out))

    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    ordinals = dict(Item.objects.filter(dataset=dataset).values_list("external_id", "ordinal"))
    assert [line["id"] for line in lines] == sorted((a.item.external_id for a in submitted), key=ordinals.get)
    assert all(list(line) == ["id", *get_subtask(subtask).answer_fields] for line in lines)
    assert draft_item.external_id not in {line["id"] for line in lines}
    err = capsys.readouterr().err
    assigned = Assignment.objects.filter(dataset=dataset, annotator=annotator).count()
    assert err.count(": unanswered") == assigned - len(submitted)
    assert f"left out: {draft_item.external_id}: unanswered" in err

    checked = scoring_validate(subtask, out)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_invalid_stored_answer_refuses_the_export_and_leaves_the_old_file(tmp_path, capsys):
    dataset = import_sample("commas")
    annotator = make_user()
    assign(dataset, [annotator], 1)
    submit_answers(dataset, annotator, every=3)
    # An answer naming a comma position the sentence does not have.
    broken = Annotation.objects.filter(annotator=annotator).order_by("item__ordinal")[1]
    broken.answer = {"commas": [999], "optional": []}
    broken.save()
    out = tmp_path / "submission.jsonl"
    out.write_text("previous export\n")

    with pytest.raises(CommandError, match="nothing written"):
        call_command("export_submission", dataset.name, "--source", f"annotator:{annotator.username}", "-o", str(out))

    assert "commas" in capsys.readouterr().err
    assert out.read_text() == "previous export\n"
    assert [path.name for path in tmp_path.iterdir()] == ["submission.jsonl"]
    with pytest.raises(NotExportable):
        build_submission(dataset, annotator)


def test_a_failed_write_leaves_no_half_file(tmp_path):
    dataset = import_sample("wsd")
    annotator = make_user()
    assign(dataset, [annotator], 1)
    submit_answers(dataset, annotator)
    # The rename onto an existing directory fails after the temporary file was written.
    target = tmp_path / "taken"
    target.mkdir()

    with pytest.raises(CommandError, match="cannot write"):
        call_command("export_submission", dataset.name, "--source", f"annotator:{annotator.username}", "-o", str(target))

    assert [path.name for path in tmp_path.iterdir()] == ["taken"]
    assert list(target.iterdir()) == []


def test_score_annotator_prints_coverage_and_the_score(capsys):
    dataset = import_sample("coreference")
    annotator = make_user()
    assign(dataset, [annotator], 1)
    submitted = submit_answers(dataset, annotator, every=4)
    wrong = submitted[0]
    gold_label = wrong.answer["answer"]
    wrong.answer = {"answer": "B" if gold_label == "A" else "A"}
    wrong.save()

    call_command("score_annotator", dataset.name, "--annotator", annotator.username)

    out = capsys.readouterr().out
    total = GoldAnswer.objects.filter(item__dataset=dataset).count()
    assert f"coverage: {len(submitted)} of {total} gold items answered" in out
    metrics = json.loads(out[out.index("{"):])
    assert metrics["n_gold"] == len(submitted)
    assert metrics["accuracy"] == pytest.approx((len(submitted) - 1) / len(submitted))


def test_score_annotator_refuses_synthetic_gold_without_the_flag(capsys):
    dataset = import_sample("discourse")
    assert dataset.gold_synthetic
    annotator = make_user()
    assign(dataset, [annotator], 1)
    submit_answers(dataset, annotator)

    with pytest.raises(CommandError, match="synthetic"):
        call_command("score_annotator", dataset.name, "--annotator", annotator.username)
    assert "score" not in capsys.readouterr().out

    call_command("score_annotator", dataset.name, "--annotator", annotator.username, "--synthetic-ok")
    out = capsys.readouterr().out
    assert "WARNING: synthetic gold" in out
    assert "score: 1.0000" in out


def test_load_demo_twice_is_harmless(capsys):
    call_command("load_demo")
    first = capsys.readouterr().out
    assert "organizer" in first and "password: polis-demo" in first
    counts = (Dataset.objects.count(), Item.objects.count(), GoldAnswer.objects.count(), Assignment.objects.count())

    call_command("load_demo")

    assert (Dataset.objects.count(), Item.objects.count(), GoldAnswer.objects.count(), Assignment.objects.count()) == counts
    assert Dataset.objects.filter(pool_of=None).count() == 12
    assert sorted(Dataset.objects.filter(gold_synthetic=True).values_list("name", flat=True)) == [
        "demo-answered-discourse", "demo-discourse"]
    for dataset in Dataset.objects.filter(pool_of=None):
        assert Assignment.objects.filter(dataset=dataset, item__dataset=dataset).count() == 3 * dataset.items.count()
    assert set(Assignment.objects.filter(dataset__name__startswith="demo-answered-")
               .values_list("annotator__username", flat=True).distinct()) == {"rater1", "rater2", "rater3"}
    assert set(Assignment.objects.exclude(dataset__name__startswith="demo-answered-")
               .values_list("annotator__username", flat=True).distinct()) == {"annotator1", "annotator2", "annotator3"}
