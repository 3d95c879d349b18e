"""The numerals widget: the Morfeusz form check, refusals, escaping, saving."""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.conf import settings

from annotation.models import Annotation
from annotation.subtasks.numerals.answers import rules as numeral_rules
from annotation.subtasks.numerals.forms import check_words, is_numeral_form
from tests.item_pages import HOSTILE, assigned_item

SAMPLE_GOLD = Path(settings.BASE_DIR, "demo", "data", "numerals", "dev.gold.jsonl")
RECORD = {"id": "n1", "sentence": "Przez miesiąc firma odmówiła tylko [[20]] osobom."}


@pytest.mark.parametrize(
    "word",
    [
        "dwudziestu", "Dwudziestu", "stu", "dwa", "pięćdziesiąt", "czterechset",  # cardinals
        "dwojga", "troje",  # collective
        "drugi", "dwudziestego", "setny", "tysięczny", "dwutysięcznym", "dziewięćdziesiątych",  # ordinals
        "tysiąc", "tysięcy", "milionów", "miliarda",  # noun numerals
        "pół", "półtora", "półtorej", "jeden", "jedną", "i",
    ],
)
def test_numeral_forms_pass(word):
    assert is_numeral_form(word)


@pytest.mark.parametrize(
    "word",
    [
        "dwudziesu",  # a typo
        "dom", "biały", "dwójka",  # Polish, not numerals
        "jedenastoletni", "dwuczęściowy",  # adjectives made from numerals, not ordinals
        "dwudziestu,", "sto-dwadzieścia",  # glued punctuation
        "<script>",
    ],
)
def test_other_words_are_flagged(word):
    assert not is_numeral_form(word)


def test_every_accepted_form_of_the_sample_passes():
    lines = [json.loads(line) for line in SAMPLE_GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    flagged = {
        word.text
        for line in lines
        for form in line["answers"]
        for word in check_words(form)
        if not word.is_numeral
    }
    assert len(lines) > 500
    assert flagged == set()


def test_check_words_keeps_the_order_and_the_words():
    assert [(w.text, w.is_numeral) for w in check_words("  stu dwudziesu\ttrzech ")] == [
        ("stu", True), ("dwudziesu", False), ("trzech", True)
    ]


@pytest.mark.parametrize(
    ("value", "refused"),
    [("dwudziestu", False), ("20", True), ("dwadzieścia 1", True), ("[[dwudziestu]]", True), ("dwudziestu]]", True)],
)
def test_rules_refuse_digits_and_brackets(value, refused):
    assert bool(numeral_rules({"answer": value}, RECORD)) is refused


@pytest.mark.django_db
def test_form_check_underlines_only_the_misspelt_word_and_never_suggests():
    page = assigned_item("numerals", RECORD)
    response = page.partial(page.client(), "form_check", {"numeral": "stu dwudziesu"})
    html = response.content.decode()
    assert response.status_code == 200
    assert '<span class="numeral-word">stu</span>' in html
    assert 'class="numeral-word not-numeral"' in html and ">dwudziesu</span>" in html
    assert "dwudziestu" not in html  # the right form is never proposed
    ok = page.partial(page.client(), "form_check", {"numeral": "dwudziestu"}).content.decode()
    assert "not-numeral" not in ok


@pytest.mark.django_db
def test_form_check_shows_the_refusal_for_digits_at_once():
    page = assigned_item("numerals", RECORD)
    html = page.partial(page.client(), "form_check", {"numeral": "20 osób"}).content.decode()
    assert "widget-refusals" in html


@pytest.mark.django_db
def test_form_check_is_only_for_the_assigned_annotator(client):
    page = assigned_item("numerals", RECORD)
    other = assigned_item("numerals", {**RECORD, "id": "n2"}).annotator
    client.force_login(other)
    assert client.post(f"{page.url}?partial=form_check", {"numeral": "dwa"}).status_code == 404


@pytest.mark.django_db
def test_hostile_sentence_renders_as_text_with_the_target_highlighted():
    page = assigned_item("numerals", {"id": "n1", "sentence": f"{HOSTILE} [[20]] osobom [[x<i>]]"})
    html = page.client().get(page.url).content.decode()
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt; &amp;amp;" in html
    assert '<mark class="target">20</mark> osobom' in html
    assert "[[20]]" not in html


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["20", "dwadzieścia [[20]]", "   "])
def test_invalid_numeral_is_refused_and_nothing_is_submitted(value):
    page = assigned_item("numerals", RECORD)
    response = page.submit(page.client(), {"answer": value})
    assert response.status_code == 422
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["xxxx", "czterysta trzydzieści prc", "dwudziesu"])
def test_an_unknown_word_is_asked_once_then_saved_as_confirmed(value):
    page = assigned_item("numerals", RECORD)
    client = page.client()
    asked = page.submit(client, {"answer": value})
    assert asked.status_code == 422 and asked.headers["X-Polis-Confirm"] == "1"
    html = asked.content.decode()
    assert 'id="confirm-save"' in html and "does not know" in html
    assert page.stored() is None  # the server decides: a fast submit cannot skip the question

    confirmed = client.post(
        page.url,
        {"intent": "submit", "answer": json.dumps({"answer": value}), "version": "0", "active_ms": "0", "confirm": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert confirmed.status_code == 200 and "HX-Redirect" in confirmed.headers
    stored = page.stored()
    unknown = [word for word in value.split() if word not in ("czterysta", "trzydzieści")]
    assert (stored.status, stored.answer, stored.metadata) == (
        Annotation.Status.SUBMITTED, {"answer": value}, {"confirmed_unknown_words": unknown},
    )


@pytest.mark.django_db
def test_a_known_numeral_saves_at_once_and_clears_an_earlier_confirmation():
    page = assigned_item("numerals", RECORD)
    client = page.client()
    client.post(
        page.url,
        {"intent": "submit", "answer": json.dumps({"answer": "xxxx"}), "version": "0", "active_ms": "0", "confirm": "1"},
        HTTP_HX_REQUEST="true",
    )
    response = client.post(
        page.url,
        {"intent": "submit", "answer": json.dumps({"answer": "dwudziestu"}), "version": "1", "active_ms": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert (page.stored().answer, page.stored().metadata) == ({"answer": "dwudziestu"}, {})


@pytest.mark.django_db
def test_a_draft_with_an_unknown_word_is_kept_without_asking():
    page = assigned_item("numerals", RECORD)
    response = page.client().post(
        page.url, {"intent": "draft", "answer": json.dumps({"answer": "xxxx"}), "version": "0", "active_ms": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and page.stored().status == Annotation.Status.DRAFT


def test_form_check_gives_the_same_results_from_many_threads():
    words = ["dwudziestu", "dwudziesu", "tysięcy", "dom", "setnego", "pół"] * 50
    is_numeral_form.cache_clear()  # the threads ask the one Morfeusz instance at the same time
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(is_numeral_form, words))
    assert results == [True, False, True, False, True, True] * 50


def test_morfeusz_is_loaded_on_first_use_and_once():
    script = (
        "from annotation.subtasks.numerals import forms\n"
        "assert forms._morfeusz is None\n"
        "forms.is_numeral_form('dwa')\n"
        "first = forms._morfeusz\n"
        "forms.is_numeral_form('trzy')\n"
        "assert first is not None and forms._morfeusz is first\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=settings.BASE_DIR, check=True)
