"""Gold that covers every item unless marked partial, the rest added later with its time, a
given gold answer never replaced, and an empty gold file refused: the same from the pages and
the commands."""

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import translation

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.importing import GoldImport, import_dataset, import_gold
from annotation.models import Dataset, GoldAnswer
from tests.annotate.conftest import wsd_records
from tests.factories import make_user

pytestmark = pytest.mark.django_db

RECORDS = wsd_records(12)
GOLD = [{"id": record["id"], "answer": "ABCD"[n % 4]} for n, record in enumerate(RECORDS)]


def jsonl(records) -> bytes:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()


def inputs() -> SourceFile:
    return SourceFile("wsd.inputs.jsonl", jsonl(RECORDS))


def gold(lines, name="wsd.gold.jsonl") -> SourceFile:
    return SourceFile(name, jsonl(lines))


@pytest.fixture
def organizer_client(client):
    client.force_login(make_user("organizer"))
    return client


def test_a_gold_file_for_5_of_12_items_is_refused_unless_partial():
    with translation.override("pl"), pytest.raises(Refused) as refused:
        import_dataset(subtask="wsd", name="test-A", inputs=inputs(), gold=gold(GOLD[:5]))
    (problem,) = refused.value.problems
    assert (problem.code, problem.file, problem.field) == ("partial_gold", "wsd.gold.jsonl", "gold")
    assert problem.params == {"missing": 7, "first": ["wsd-6", "wsd-7", "wsd-8", "wsd-9", "wsd-10"]}
    assert problem.message.startswith("pozycje bez klucza: 7 (pierwsze: wsd-6, wsd-7, wsd-8, wsd-9, wsd-10)")
    assert not Dataset.objects.exists()

    dataset = import_dataset(subtask="wsd", name="test-A", inputs=inputs(), gold=gold(GOLD[:5]), gold_partial=True)
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == 5


def test_the_missing_gold_is_added_later_with_its_time_and_never_replaces_given_gold():
    dataset = import_dataset(subtask="wsd", name="test-A", inputs=inputs(), gold=gold(GOLD[:5]), gold_partial=True)
    first = GoldAnswer.objects.get(item__external_id="wsd-1")
    GoldAnswer.objects.filter(item__dataset=dataset).update(added_at=first.added_at - timedelta(days=1))

    # Another part, still partial: refused without the word, taken with it.
    with pytest.raises(Refused) as refused:
        import_gold(dataset=dataset, gold=gold(GOLD[5:8]))
    assert [problem.code for problem in refused.value.problems] == ["partial_gold"]
    assert import_gold(dataset=dataset, gold=gold(GOLD[5:8]), partial=True) == GoldImport(3, 0, 4)

    # A line that differs from an item's gold is refused, naming its line; nothing is written.
    changed = [*GOLD[8:], {"id": "wsd-2", "answer": "D"}]
    with translation.override("pl"), pytest.raises(Refused) as refused:
        import_gold(dataset=dataset, gold=gold(changed))
    (problem,) = refused.value.problems
    assert (problem.code, problem.line, problem.params) == ("gold_given", 5, {"id": "wsd-2"})
    assert "której tu się nigdy nie zastępuje" in problem.message
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == 8
    assert GoldAnswer.objects.get(item__external_id="wsd-2").payload == GOLD[1]

    # The whole file again: the given lines are passed over, the missing ones added.
    assert import_gold(dataset=dataset, gold=gold(GOLD)) == GoldImport(4, 8, 0)
    added = dict(GoldAnswer.objects.filter(item__dataset=dataset).values_list("item__external_id", "added_at"))
    assert added["wsd-12"] > added["wsd-6"] > added["wsd-1"]


@pytest.mark.parametrize("data", [b"", b"\n\n  \n"])
def test_an_empty_gold_file_is_refused_as_the_import_page_refuses_it(data):
    dataset = import_dataset(subtask="wsd", name="test-A", inputs=inputs())
    with translation.override("pl"), pytest.raises(Refused) as refused:
        import_gold(dataset=dataset, gold=SourceFile("empty.jsonl", data), partial=True)
    assert [(problem.code, problem.file, str(problem.message)) for problem in refused.value.problems] == [
        ("empty", "empty.jsonl", "nie zawiera żadnych rekordów")]
    with pytest.raises(Refused) as on_import:
        import_dataset(subtask="wsd", name="test-B", inputs=inputs(), gold=SourceFile("empty.jsonl", data),
                       gold_partial=True)
    assert [problem.code for problem in on_import.value.problems] == ["empty"]
    assert not GoldAnswer.objects.exists()


def test_the_pages_refuse_partial_gold_unless_ticked_and_show_the_rest_to_add(organizer_client):
    response = organizer_client.post(reverse("organizer_import"), {
        "name": "test-A", "subtask": "wsd", "inputs": SimpleUploadedFile("in.jsonl", jsonl(RECORDS)),
        "gold": SimpleUploadedFile("g.jsonl", jsonl(GOLD[:5]))}, HTTP_ACCEPT_LANGUAGE="pl")
    assert response.status_code == 422
    assert "pozycje bez klucza: 7" in response.content.decode()
    assert not Dataset.objects.exists()
    response = organizer_client.post(reverse("organizer_import"), {
        "name": "test-A", "subtask": "wsd", "inputs": SimpleUploadedFile("in.jsonl", jsonl(RECORDS)),
        "gold": SimpleUploadedFile("g.jsonl", jsonl(GOLD[:5])), "gold_partial": "on"})
    dataset = Dataset.objects.get(name="test-A")
    assert response.status_code == 302
    page = organizer_client.get(reverse("organizer_dataset", args=[dataset.pk]), HTTP_ACCEPT_LANGUAGE="pl")
    assert "5 z 12 pozycji" in page.content.decode()
    assert reverse("organizer_import_gold", args=[dataset.pk]) in page.content.decode()

    url = reverse("organizer_import_gold", args=[dataset.pk])
    response = organizer_client.post(url, {"gold": SimpleUploadedFile("blank.jsonl", b"\n\n")},
                                     HTTP_ACCEPT_LANGUAGE="pl")
    assert response.status_code == 422
    assert "nie zawiera żadnych rekordów" in response.content.decode()
    response = organizer_client.post(url, {"gold": SimpleUploadedFile("rest.jsonl", jsonl(GOLD[5:]))},
                                     HTTP_ACCEPT_LANGUAGE="pl", follow=True)
    assert "Dodane odpowiedzi z klucza: 7; już obecne i niezmienione: 0; pozycje nadal bez klucza: 0." in (
        response.content.decode())
    # The dataset page lists both additions with their times.
    assert "5 odpowiedzi z klucza dodanych" in response.content.decode()
    assert "7 odpowiedzi z klucza dodanych" in response.content.decode()
    assert GoldAnswer.objects.filter(item__dataset=dataset).count() == 12


def test_the_commands_refuse_and_allow_the_same(tmp_path, capsys):
    (tmp_path / "in.jsonl").write_bytes(jsonl(RECORDS))
    (tmp_path / "part.jsonl").write_bytes(jsonl(GOLD[:5]))
    (tmp_path / "rest.jsonl").write_bytes(jsonl(GOLD[5:]))
    (tmp_path / "blank.jsonl").write_bytes(b"\n\n")
    with pytest.raises(CommandError) as refused:
        call_command("import_items", "wsd", str(tmp_path / "in.jsonl"), "--dataset", "test-A",
                     "--gold", str(tmp_path / "part.jsonl"))
    assert refused.value.returncode == 1
    assert "part.jsonl: gold: items without gold: 7" in capsys.readouterr().err
    call_command("import_items", "wsd", str(tmp_path / "in.jsonl"), "--dataset", "test-A",
                 "--gold", str(tmp_path / "part.jsonl"), "--gold-partial")
    with pytest.raises(CommandError):
        call_command("import_gold", "test-A", str(tmp_path / "blank.jsonl"), "--partial")
    assert "blank.jsonl: file: holds no records" in capsys.readouterr().err
    call_command("import_gold", "test-A", str(tmp_path / "rest.jsonl"))
    assert "Imported 7 gold answers into test-A (0 already there, 0 items still without gold)." in (
        capsys.readouterr().out)
