"""The word-sense widget and the shared marker markup: escaping first, then highlighting."""

import re

import pytest

from annotation.models import Annotation
from annotation.subtasks.widgets.markup import element, highlight, mark_up
from scoring.subtasks.commas import MARKER as POSITION
from scoring.subtasks.numerals import TARGET as NUMERAL_TARGET
from scoring.subtasks.wsd import TARGET as WSD_TARGET
from tests.item_pages import HOSTILE, assigned_item

RECORD = {
    "id": "w1",
    "reference_sentence": "Właściciel [[TARGET]]zamku[[/TARGET]] był bogaty.",
    "candidates": {
        "A": "W [[TARGET]]zamku[[/TARGET]] Książąt Pomorskich zebrał się tłum.",
        "B": "Ślusarz wymienił [[TARGET]]zamek[[/TARGET]] w drzwiach.",
        "C": "Zepsuł mi się [[TARGET]]zamek[[/TARGET]] w kurtce.",
        "D": "Żołnierz odciągnął [[TARGET]]zamek[[/TARGET]] karabinu.",
    },
}


def test_markup_escapes_before_highlighting():
    html = highlight(f"{HOSTILE} [[TARGET]]<i>zamek</i> & co[[/TARGET]]", WSD_TARGET)
    assert html == (
        "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt; &amp;amp; "
        '<mark class="target">&lt;i&gt;zamek&lt;/i&gt; &amp; co</mark>'
    )


def test_markup_leaves_an_unpaired_marker_as_text():
    assert highlight("a [[TARGET]]b", WSD_TARGET) == "a [[TARGET]]b"


def test_markup_cannot_be_forged_with_escaped_brackets():
    # Entities in the item text stay text; they never turn into markers.
    assert highlight("&#91;&#91;TARGET]]x[[/TARGET]]", WSD_TARGET) == "&amp;#91;&amp;#91;TARGET]]x[[/TARGET]]"


def test_element_escapes_attribute_values_and_unsafe_inner_text():
    assert element("span", "<b>", {"title": '"x"'}) == '<span title="&quot;x&quot;">&lt;b&gt;</span>'


def test_numeral_target_hides_its_brackets():
    assert highlight("w [[1856]] r.", NUMERAL_TARGET) == 'w <mark class="target">1856</mark> r.'


def test_mark_up_passes_match_groups_to_the_renderer():
    seen = []
    mark_up("[3] a [12]", POSITION, lambda m, inner: seen.append((m["label"], inner)) or "")
    assert seen == [("3", None), ("12", None)]


@pytest.mark.django_db
def test_hostile_text_renders_as_text_in_reference_and_cards():
    hostile = {
        "id": "w1",
        "reference_sentence": f"{HOSTILE} [[TARGET]]zamek<i>[[/TARGET]]",
        "candidates": {letter: f"{letter} {HOSTILE} [[TARGET]]zamek[[/TARGET]]" for letter in "ABCD"},
    }
    page = assigned_item("wsd", hostile)
    html = page.client().get(page.url).content.decode()
    assert "<script>alert" not in html and "<b>bold</b>" not in html and "zamek<i>" not in html
    widget = html.split('id="answer-form"')[1]  # the guideline above has its own examples
    assert widget.count('<mark class="target">zamek</mark>') == 4
    assert '<mark class="target">zamek&lt;i&gt;</mark>' in widget
    assert html.count("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot;") == 5


@pytest.mark.django_db
def test_page_shows_four_cards_with_their_keys():
    page = assigned_item("wsd", RECORD)
    html = page.client().get(page.url).content.decode()
    for number, letter in enumerate("ABCD", start=1):
        assert f'data-codes="Key{letter} Digit{number} Numpad{number}"' in html
        assert f"<kbd>{letter}</kbd><kbd>{number}</kbd>" in html


@pytest.mark.django_db
@pytest.mark.parametrize("answer", [None, {}, {"answer": None}, {"answer": "E"}, {"answer": "a"}])
def test_no_choice_or_a_bad_letter_is_refused(answer):
    page = assigned_item("wsd", RECORD)
    assert page.submit(page.client(), answer).status_code == 422
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()


@pytest.mark.django_db
def test_chosen_letter_is_stored_and_shown_checked_on_return():
    page = assigned_item("wsd", RECORD)
    assert page.submit(page.client(), {"answer": "C"}).status_code == 200
    assert page.stored().answer == {"answer": "C"}
    html = page.client().get(page.url).content.decode()
    assert re.search(r'data-choice="C"[^>]*aria-checked="true"', html, re.DOTALL)
