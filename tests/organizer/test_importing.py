import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.importing import GoldImport, import_dataset, import_gold
from annotation.models import Dataset, GoldAnswer, Item
from tests.organizer.conftest import import_sample, sample_files, source

pytestmark = pytest.mark.django_db


def lines_of(path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def jsonl(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8")


def assert_nothing_written() -> None:
    assert Dataset.objects.count() == 0
    assert Item.objects.count() == 0
    assert GoldAnswer.objects.count() == 0


def test_imports_the_sample_data_of_every_subtask(subtask):
    inputs, gold = sample_files(subtask)
    dataset = import_sample(subtask)

    records = [json.loads(line) for line in lines_of(inputs)]
    items = list(dataset.items.order_by("ordinal"))
    assert [item.external_id for item in items] == [record["id"] for record in records]
    assert [item.payload for item in items] == records
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == len(lines_of(gold))
    assert dataset.source_filename == "dev.inputs.jsonl"
    assert dataset.source_sha256 == source(inputs).sha256
    assert len(dataset.source_sha256) == 64
    assert dataset.gold_synthetic is (subtask == "discourse")


def commas_lines() -> list[str]:
    return lines_of(sample_files("commas")[0])[:5]


def with_line_3(replacement: str) -> list[str]:
    lines = commas_lines()
    lines[2] = replacement
    return lines


BAD_INPUTS = {
    "broken JSON": (with_line_3('{"id": "x", "sentence_with_positions": "A [1] b'), "json"),
    "schema violation": (with_line_3('{"id": "x", "sentence_with_positions": 7}'), "sentence_with_positions"),
    "missing field": (with_line_3('{"id": "x"}'), "sentence_with_positions"),
    "bad markers": (with_line_3('{"id": "x", "sentence_with_positions": "A [1] b [3] c."}'), "sentence_with_positions"),
    "duplicate id": (with_line_3(commas_lines()[0]), "id"),
    "id too long for the database": (with_line_3(json.dumps({"id": "x" * 201, "sentence_with_positions": "A [1] b."})), "id"),
}


@pytest.mark.parametrize("kind", BAD_INPUTS)
def test_a_bad_input_line_is_reported_with_its_line_and_field_and_nothing_is_written(kind):
    lines, field = BAD_INPUTS[kind]
    with pytest.raises(Refused) as refused:
        import_dataset(subtask="commas", name="bad", inputs=SourceFile("bad.jsonl", jsonl(lines)))
    assert [(problem.file, problem.line, problem.field) for problem in refused.value.problems] == [
        ("bad.jsonl", 3, field)
    ]
    assert_nothing_written()


def test_gold_for_an_unknown_id_is_reported_and_nothing_is_written():
    lines = commas_lines()
    gold = [json.dumps({"id": json.loads(line)["id"], "commas": [], "optional": []}) for line in lines]
    gold.insert(1, json.dumps({"id": "no-such-item", "commas": [], "optional": []}))
    with pytest.raises(Refused) as refused:
        import_dataset(
            subtask="commas",
            name="bad",
            inputs=SourceFile("in.jsonl", jsonl(lines)),
            gold=SourceFile("gold.jsonl", jsonl(gold)),
        )
    assert [(problem.file, problem.line, problem.field) for problem in refused.value.problems] == [
        ("gold.jsonl", 2, "id")
    ]
    assert "no-such-item" in refused.value.problems[0].message
    assert_nothing_written()


def test_every_problem_of_both_files_is_reported_not_only_the_first():
    lines = commas_lines()
    lines[1] = "not json"
    lines[3] = '{"id": "m", "sentence_with_positions": "A [2] b."}'
    lines.append(lines[0])
    gold = [json.dumps({"id": "ghost", "commas": [1], "optional": []}), json.dumps({"id": json.loads(lines[0])["id"]})]
    with pytest.raises(Refused) as refused:
        import_dataset(
            subtask="commas",
            name="bad",
            inputs=SourceFile("in.jsonl", jsonl(lines)),
            gold=SourceFile("gold.jsonl", jsonl(gold)),
        )
    located = {(problem.file, problem.line) for problem in refused.value.problems}
    assert {("in.jsonl", 2), ("in.jsonl", 4), ("in.jsonl", 6), ("gold.jsonl", 1), ("gold.jsonl", 2)} <= located
    assert_nothing_written()


def test_gold_is_checked_against_its_item():
    # Marker 9 does not exist in the sentence of the first item.
    lines = commas_lines()
    gold = [json.dumps({"id": json.loads(lines[0])["id"], "commas": [9], "optional": []})]
    with pytest.raises(Refused) as refused:
        import_dataset(
            subtask="commas", name="bad", inputs=SourceFile("in.jsonl", jsonl(lines)), gold=SourceFile("g.jsonl", jsonl(gold))
        )
    assert [(problem.file, problem.line) for problem in refused.value.problems] == [("g.jsonl", 1)]
    assert_nothing_written()


def test_import_into_an_existing_dataset_is_refused_and_changes_nothing():
    dataset = import_sample("wsd", name="taken")
    before = dataset.items.count()
    with pytest.raises(Refused) as refused:
        import_sample("wsd", name="taken")
    assert refused.value.problems[0].field == "dataset"
    assert "taken" in refused.value.problems[0].message
    assert Dataset.objects.count() == 1
    assert Item.objects.count() == before


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [("  ", b'{"id": "a", "answer": "x"}\n', "needs a name"), ("x" * 101, b"", "at most 100"), ("empty", b"\n\n", "no records")],
)
def test_a_blank_or_long_name_or_an_empty_file_is_refused(name, data, message):
    with pytest.raises(Refused, match=message):
        import_dataset(subtask="numerals", name=name, inputs=SourceFile("in.jsonl", data))
    assert_nothing_written()


def test_gold_can_be_imported_later_and_again_unchanged():
    dataset = import_sample("coreference", with_gold=False)
    gold = source(sample_files("coreference")[1])
    count = dataset.items.count()
    assert import_gold(dataset=dataset, gold=gold) == GoldImport(added=count, unchanged=0, missing=0)
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == count
    assert import_gold(dataset=dataset, gold=gold) == GoldImport(added=0, unchanged=count, missing=0)


def test_later_gold_with_an_unknown_id_writes_nothing():
    dataset = import_sample("coreference", with_gold=False)
    lines = lines_of(sample_files("coreference")[1])
    lines[4] = json.dumps({"id": "ghost", "answer": "A"})
    with pytest.raises(Refused) as refused:
        import_gold(dataset=dataset, gold=SourceFile("g.jsonl", jsonl(lines)), gold_synthetic=True)
    assert [(problem.line, problem.field) for problem in refused.value.problems] == [(5, "id")]
    assert GoldAnswer.objects.count() == 0
    dataset.refresh_from_db()
    assert dataset.gold_synthetic is False


def test_ten_thousand_items_are_written_in_bulk(django_assert_max_num_queries):
    template = [json.loads(line) for line in commas_lines()]
    records = [{**template[n % len(template)], "id": f"item-{n}"} for n in range(10_000)]
    data = jsonl([json.dumps(record, ensure_ascii=False) for record in records])
    # Batches of many rows: SQLite's limit on bound parameters makes its batches ~250 rows.
    with django_assert_max_num_queries(60):
        dataset = import_dataset(subtask="commas", name="big", inputs=SourceFile("big.jsonl", data))
    assert dataset.items.count() == 10_000
    assert dataset.items.get(ordinal=9_999).external_id == "item-9999"


def test_import_items_command_lists_every_problem_and_fails(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    lines = commas_lines()
    lines[0] = "{"
    lines[4] = '{"id": 5}'
    bad.write_bytes(jsonl(lines))
    with pytest.raises(CommandError, match="problems; nothing imported"):
        call_command("import_items", "commas", str(bad), "--dataset", "x")
    err = capsys.readouterr().err
    assert "bad.jsonl:1: json:" in err
    assert "bad.jsonl:5: id:" in err
    assert_nothing_written()


def test_import_items_command_exits_with_code_1(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"{\n")
    # manage.py exits with the CommandError's return code.
    with pytest.raises(CommandError) as refused:
        call_command("import_items", "commas", str(bad), "--dataset", "x")
    assert refused.value.returncode == 1
    assert_nothing_written()


def test_import_commands_with_gold(capsys):
    inputs, gold = sample_files("discourse")
    call_command("import_items", "discourse", str(inputs), "--dataset", "d", "--gold", str(gold), "--gold-synthetic")
    dataset = Dataset.objects.get(name="d")
    assert dataset.gold_synthetic
    assert "(synthetic)" in capsys.readouterr().out

    inputs, gold = sample_files("numerals")
    call_command("import_items", "numerals", str(inputs), "--dataset", "n")
    call_command("import_gold", "n", str(gold))
    assert GoldAnswer.objects.filter(item__dataset__name="n").count() == len(lines_of(gold))


def break_markers(subtask: str, record: dict) -> tuple[dict, str]:
    """The record with its subtask's markers broken, and the field that names the fault."""
    if subtask == "numerals":
        return {**record, "sentence": record["sentence"].replace("[[", "").replace("]]", "")}, "sentence"
    if subtask == "wsd":
        return {**record, "reference_sentence": record["reference_sentence"].replace("[[/TARGET]]", "")}, "reference_sentence"
    if subtask == "coreference":
        return {**record, "context": record["context"].replace("[/A]", "")}, "context"
    if subtask == "commas":
        return {**record, "sentence_with_positions": record["sentence_with_positions"].replace("[1]", "[7]")}, "sentence_with_positions"
    if subtask == "discourse":
        units = record["discourse_units"]
        return {**record, "discourse_units": [*units, units[0]]}, f"discourse_units[{len(units)}].du_id"
    # morphosyntax has no markers: an empty sentence is its input fault.
    return {**record, "sentence": ""}, "sentence"


def test_broken_markers_of_every_subtask_are_reported_with_line_and_field(subtask):
    inputs, gold = sample_files(subtask)
    lines = lines_of(inputs)[:6]
    broken, field = break_markers(subtask, json.loads(lines[4]))
    lines[4] = json.dumps(broken, ensure_ascii=False)
    with pytest.raises(Refused) as refused:
        import_dataset(subtask=subtask, name="bad", inputs=SourceFile("in.jsonl", jsonl(lines)), gold=source(gold))
    input_problems = [problem for problem in refused.value.problems if problem.file == "in.jsonl"]
    assert [(problem.line, problem.field) for problem in input_problems] == [(5, field)]
    assert_nothing_written()
