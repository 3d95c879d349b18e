"""Import of training and control pools: `import_items SUBTASK FILE --gold G --training-for DATASET`."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Dataset, Explanation
from tests.annotate.conftest import wsd_records

pytestmark = pytest.mark.django_db


def write(path, records):
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    # Texts of their own: the dataset's items are wsd_records(12).
    records = [{**record, "id": f"t-{n}"} for n, record in enumerate(wsd_records(15)[12:], 1)]
    gold = [{"id": "t-1", "answer": "B", "explanation": "Bo B."}, {"id": "t-2", "answer": "C"}, {"id": "t-3", "answer": "D"}]
    return write(tmp_path / "t.inputs.jsonl", records), write(tmp_path / "t.gold.jsonl", gold), tmp_path


def test_a_training_pool_with_explanations(dataset, files, capsys):
    inputs, gold, _ = files
    call_command("import_items", "wsd", inputs, "--gold", gold, "--training-for", dataset.name)
    pool = Dataset.objects.get(pool_of=dataset)
    assert (pool.name, pool.pool_kind, pool.items.count()) == (f"{dataset.name}.training", Dataset.PoolKind.TRAINING, 3)
    assert list(Explanation.objects.values_list("item__external_id", "text")) == [("t-1", "Bo B.")]
    assert pool.items.get(external_id="t-1").gold.payload == {"id": "t-1", "answer": "B"}
    assert "the training pool of" in capsys.readouterr().out


def test_a_control_pool_and_a_second_one_refused(dataset, files, capsys):
    inputs, gold, _ = files
    call_command("import_items", "wsd", inputs, "--gold", gold, "--control-for", dataset.name, "--dataset", "kontrola")
    assert Dataset.objects.get(name="kontrola").pool_kind == Dataset.PoolKind.CONTROL
    with pytest.raises(CommandError, match="nothing imported"):
        call_command("import_items", "wsd", inputs, "--gold", gold, "--control-for", dataset.name, "--dataset", "k2")
    assert "has its pool already (control pool)" in capsys.readouterr().err


@pytest.mark.parametrize(("change", "expected"), [
    (lambda args: args[:2] + args[4:], "needs its gold file"),  # no --gold
    (lambda args: ["numerals"] + args[1:], "The pool's subtask must be"),
])
def test_refusals_change_nothing(dataset, files, capsys, change, expected):
    inputs, gold, _ = files
    with pytest.raises(CommandError):
        call_command("import_items", *change(["wsd", inputs, "--gold", gold, "--training-for", dataset.name]))
    assert expected in capsys.readouterr().err
    assert not Dataset.objects.filter(pool_of=dataset).exists()


def test_an_explanation_that_is_no_text_is_refused_with_file_and_line(dataset, files, capsys):
    inputs, _, tmp_path = files
    gold = write(tmp_path / "bad.gold.jsonl", [{"id": "t-1", "answer": "B"}, {"id": "t-2", "answer": "C", "explanation": 7},
                                              {"id": "t-3", "answer": "D"}])
    with pytest.raises(CommandError):
        call_command("import_items", "wsd", inputs, "--gold", gold, "--training-for", dataset.name)
    assert "bad.gold.jsonl:2: explanation: must be text\n" in capsys.readouterr().err
    assert not Dataset.objects.filter(pool_of=dataset).exists()
    write(tmp_path / "bad.gold.jsonl", [{"id": "t-1", "answer": "B"}, {"id": "t-2", "answer": "C"},
                                        {"id": "t-3", "answer": "D", "explanation": "Bo\u0000tak."}])
    with pytest.raises(CommandError):
        call_command("import_items", "wsd", inputs, "--gold", gold, "--training-for", dataset.name)
    assert "bad.gold.jsonl:3: explanation: must not hold U+0000\n" in capsys.readouterr().err
    assert not Dataset.objects.filter(pool_of=dataset).exists()


def test_gold_problems_keep_their_line_numbers(dataset, files, capsys):
    inputs, _, tmp_path = files
    (tmp_path / "g.jsonl").write_text(
        '{"id": "t-1", "answer": "B", "explanation": "x"}\n\n{"id": "t-2", "answer": "Z"}\n{"id": "t-3", "answer": "D"}\n',
        encoding="utf-8",
    )
    with pytest.raises(CommandError):
        call_command("import_items", "wsd", inputs, "--gold", str(tmp_path / "g.jsonl"), "--training-for", dataset.name)
    assert "g.jsonl:3: answer" in capsys.readouterr().err


def test_every_pool_item_needs_gold(dataset, files, capsys):
    inputs, _, tmp_path = files
    gold = write(tmp_path / "part.gold.jsonl", [{"id": "t-1", "answer": "B"}])
    with pytest.raises(CommandError):
        call_command("import_items", "wsd", inputs, "--gold", gold, "--training-for", dataset.name)
    assert "part.gold.jsonl: gold: items without gold: 2 (the first: t-2, t-3)" in capsys.readouterr().err
    assert not Dataset.objects.filter(pool_of=dataset).exists()
