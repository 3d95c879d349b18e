"""The morphosyntax widget: the word diff, the refusal of an unchanged correction, escaping."""

import pytest

from annotation.subtasks.morphosyntax.answers import rules as morphosyntax_rules
from annotation.subtasks.morphosyntax.widget import DiffPiece, word_diff
from tests.item_pages import HOSTILE, assigned_item

SENTENCE = "Atmosfera jest układem chaotycznemu, dlatego małe zmiany może mieć duży wpływ."
CORRECTED = "Atmosfera jest układem chaotycznym, dlatego małe zmiany mogą mieć duży wpływ."
RECORD = {"id": "m1", "sentence": SENTENCE}


def test_word_diff_marks_the_changed_words_only():
    changes = [(p.kind, p.text) for p in word_diff(SENTENCE, CORRECTED) if p.kind != "equal"]
    assert changes == [("delete", "chaotycznemu"), ("insert", "chaotycznym"), ("delete", "może"), ("insert", "mogą")]


def test_word_diff_rebuilds_both_sentences():
    pieces = word_diff(SENTENCE, CORRECTED)
    assert "".join(p.space + p.text for p in pieces if p.kind != "insert") == SENTENCE
    assert "".join(p.space + p.text for p in pieces if p.kind != "delete") == CORRECTED


def test_word_diff_treats_punctuation_as_its_own_token():
    assert [p for p in word_diff("Tak, to on.", "Tak to on.") if p.kind != "equal"] == [DiffPiece("delete", "", ",")]


@pytest.mark.parametrize(
    ("answer", "refused"),
    [
        ({"answer": "NIEPOPRAWNE", "corrected_sentence": SENTENCE}, True),
        ({"answer": "NIEPOPRAWNE", "corrected_sentence": "  " + SENTENCE.replace(" ", "  ") + " "}, True),
        ({"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTED}, False),
        ({"answer": "POPRAWNE", "corrected_sentence": ""}, False),
    ],
)
def test_rules_refuse_a_correction_equal_to_the_original(answer, refused):
    assert bool(morphosyntax_rules(answer, RECORD)) is refused


@pytest.mark.django_db
def test_identical_correction_is_refused_and_nothing_is_submitted():
    page = assigned_item("morphosyntax", RECORD)
    response = page.submit(page.client(), {"answer": "NIEPOPRAWNE", "corrected_sentence": SENTENCE + " "})
    assert response.status_code == 422
    assert "correction is the same as the original" in response.content.decode()
    assert page.stored() is None


@pytest.mark.django_db
def test_no_choice_is_refused():
    page = assigned_item("morphosyntax", RECORD)
    assert page.submit(page.client(), None).status_code == 422
    assert page.submit(page.client(), {}).status_code == 422
    assert page.stored() is None


@pytest.mark.django_db
def test_correction_is_stored_as_typed():
    page = assigned_item("morphosyntax", RECORD)
    response = page.submit(page.client(), {"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTED})
    assert response.status_code == 200
    assert page.stored().answer == {"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTED}


@pytest.mark.django_db
def test_diff_partial_renders_the_changes_escaped():
    page = assigned_item("morphosyntax", {"id": "m1", "sentence": f"{HOSTILE} ma kot."})
    html = page.partial(page.client(), "diff", {"corrected_sentence": f"{HOSTILE} ma kota <i>."}).content.decode()
    assert "<script>" not in html and "<i>" not in html
    assert " <del>kot</del> <ins>kota</ins> <ins>&lt;</ins><ins>i</ins><ins>&gt;</ins>." in html


@pytest.mark.django_db
def test_diff_partial_says_when_nothing_changed():
    page = assigned_item("morphosyntax", RECORD)
    html = page.partial(page.client(), "diff", {"corrected_sentence": SENTENCE}).content.decode()
    assert "diff-none" in html and "<ins>" not in html


@pytest.mark.django_db
def test_hostile_sentence_renders_as_text_in_sentence_and_editor():
    page = assigned_item("morphosyntax", {"id": "m1", "sentence": HOSTILE})
    html = page.client().get(page.url).content.decode()
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    escaped = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt; &amp;amp;"
    assert html.count(escaped) >= 3  # the sentence, the editor's text and its data-original


@pytest.mark.django_db
def test_stored_correction_reopens_in_the_editor():
    page = assigned_item("morphosyntax", RECORD)
    page.submit(page.client(), {"answer": "NIEPOPRAWNE", "corrected_sentence": CORRECTED})
    html = page.client().get(page.url).content.decode()
    assert f">{CORRECTED}</textarea>" in html
    assert '<div class="morph-editor">' in html  # shown, not hidden
