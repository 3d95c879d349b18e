"""What an organizer reads about a refused file is in their language, with file, line and
field kept, made from the problem's code and parameters through the catalogue."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.importing import import_dataset
from annotation.subtasks.problem_texts import TREE_PROBLEM_TEXTS, for_organizer
from scoring.problems import MESSAGES, problem
from scoring.validation import check_gold, check_inputs
from tests.factories import make_user
from tests.organizer.conftest import import_sample

BAD_COMMAS = "\n".join(
    [
        '{"id": "a", "sentence_with_positions": "Ala [1] ma kota [2]."}',
        '{"id": "a", "sentence_with_positions": "Ala [1] ma kota [2]."}',  # the id again
        '{"id": "b", "sentence_with_positions": "Ala [2] ma kota."}',  # markers not from 1
        "{not json",
        '["a list"]',
        '{"id": "c"}',  # no sentence
        '{"id": "d", "sentence_with_positions": 7, "extra": 1}',
        '{"id": "e", "sentence_with_positions": "Bez znaczników."}',
    ]
).encode()


def test_every_problem_of_a_bad_inputs_file_is_said_in_polish_with_file_line_and_field():
    _records, problems = check_inputs("commas", BAD_COMMAS, "zle.jsonl")
    assert {problem.code for problem in problems} >= {
        "duplicate_id", "bad_markers", "json", "not_object", "required", "type", "no_markers",
    }
    with translation.override("pl"):
        for problem in problems:
            said = for_organizer(problem)
            assert (said.file, said.line, said.field, said.code) == (problem.file, problem.line, problem.field, problem.code)
            assert said.message != problem.message, problem


def test_gold_problems_are_said_in_polish_too():
    inputs = [{"id": "a", "reference_sentence": "x", "candidates": {}}]
    _records, problems = check_gold("wsd", b'{"id": "zz", "answer": "A"}\n', "klucz.jsonl", inputs)
    with translation.override("pl"):
        assert [for_organizer(problem).message for problem in problems] == ["'zz' nie jest identyfikatorem z pliku wejściowego"]


# Every template the scorer fills, but the tree's (said in the editor's words) and jsonschema's own.
TEMPLATES = sorted(key for key in MESSAGES if key != "schema" and key.partition("/")[0] not in TREE_PROBLEM_TEXTS)


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_of_the_scorer_is_a_msgid_with_a_polish_text_of_the_same_placeholders(template):
    from django.utils.translation import gettext

    english = MESSAGES[template]
    with translation.override("pl"):
        polish = gettext(english)
    assert polish != english
    placeholders = r"%\((\w+)\)([sr])"
    assert set(re.findall(placeholders, polish)) == set(re.findall(placeholders, english))


def test_the_organizer_s_text_is_made_from_the_params_not_from_the_message():
    said = problem("duplicate_id", "id", "f.jsonl", 9, id="x", first_line=3)
    garbled = said.__class__(said.field, "something else entirely", said.code, said.file, said.line, said.params, said.template)
    with translation.override("pl"):
        assert for_organizer(garbled).message == "identyfikator 'x' występuje dwa razy (pierwszy raz w wierszu 3)"
    with translation.override("en"):
        assert for_organizer(garbled).message == "duplicate id 'x' (first on line 3)"


def test_a_tree_problem_of_a_gold_line_names_its_unit_in_polish():
    with translation.override("pl"):
        said = for_organizer(problem("cycle/du", "discourse_units[1]", "g.jsonl", 2, du="1.2"))
        assert said.message == "jednostka 1.2: " + str(TREE_PROBLEM_TEXTS["cycle"])


@pytest.mark.django_db
def test_the_import_page_lists_the_problems_in_polish(client):
    client.force_login(make_user("organizer", username="olga-pl"))
    client.cookies.load({"django_language": "pl"})
    upload = SimpleUploadedFile("zle.jsonl", BAD_COMMAS)
    response = client.post(reverse("organizer_import"), {"name": "zly", "subtask": "commas", "inputs": upload})
    html = response.content.decode()
    assert response.status_code == 422
    assert "identyfikator &#x27;a&#x27; występuje dwa razy (pierwszy raz w wierszu 1)" in html
    assert "nie jest poprawnym JSON-em" in html and "<td>zle.jsonl</td><td>4</td>" in html
    assert "duplicate id" not in html and "invalid JSON" not in html


@pytest.mark.django_db
def test_an_existing_dataset_name_is_refused_in_polish():
    import_sample("wsd", name="jest")
    with translation.override("pl"), pytest.raises(Refused) as refused:
        import_dataset(subtask="wsd", name="jest", inputs=SourceFile("a.jsonl", b""))
    assert "zbiór o nazwie „jest” już istnieje" in str(refused.value)
