"""The coreference widget: mentions highlighted with their letters, escaping, saving."""

import re

import pytest

from annotation.models import Annotation
from annotation.subtasks.coreference import widget as coreference
from tests.item_pages import HOSTILE, assigned_item

RECORD = {
    "id": "c1",
    "context": "Dziecko w [D]kostiumie[/D], [B]czepku[/B] i [C]rękawkach[/C] skacze do [A]basenu[/A], w [T]którym[/T] pływa mężczyzna.",
    "candidates": {"A": "basenu", "B": "czepku", "C": "rękawkach", "D": "kostiumie"},
}


def test_mentions_carry_their_letter_style_and_badge():
    html = coreference.context(RECORD, None)["context_html"]
    for letter, text in RECORD["candidates"].items():
        assert (
            f'<mark class="mention mention-{letter}" data-choice="{letter}" data-mention="{letter}">'
            f'<span class="mention-badge">{letter}</span>{text}</mark>'
        ) in html
    assert '<mark class="mention mention-T" data-mention="T"><span class="mention-badge">T</span>którym</mark>' in html
    assert "[" not in html


def test_nested_mentions_nest_and_the_target_text_drops_inner_markers():
    payload = {"context": "[A]pan [T]Kowalski z [B]Radomia[/B][/T][/A] przyszedł", "candidates": {}}
    html = coreference.context(payload, None)["context_html"]
    assert re.fullmatch(
        r'<mark [^>]*mention-A[^>]*><span class="mention-badge">A</span>pan '
        r'<mark [^>]*mention-T[^>]*><span class="mention-badge">T</span>Kowalski z '
        r'<mark [^>]*mention-B[^>]*><span class="mention-badge">B</span>Radomia</mark></mark></mark> przyszedł',
        html,
    )
    assert coreference.context(payload, None)["target_text"] == "Kowalski z Radomia"


@pytest.mark.django_db
def test_hostile_text_renders_as_text_in_context_and_list():
    hostile = {
        "id": "c1",
        "context": f"{HOSTILE} [A]<b>x</b>[/A] [B]b[/B] [C]c[/C] [D]d[/D] [T]on\"[/T]",
        "candidates": {"A": "<b>x</b>", "B": HOSTILE, "C": "c", "D": "d"},
    }
    page = assigned_item("coreference", hostile)
    html = page.client().get(page.url).content.decode()
    assert "<script>alert" not in html and "<b>" not in html
    assert '<span class="mention-badge">A</span>&lt;b&gt;x&lt;/b&gt;</mark>' in html
    assert html.count("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot;") == 2
    assert "on&quot;" in html


@pytest.mark.django_db
def test_candidates_are_listed_with_their_keys_and_text():
    page = assigned_item("coreference", RECORD)
    html = page.client().get(page.url).content.decode()
    for number, (letter, text) in enumerate(RECORD["candidates"].items(), start=1):
        assert f'data-codes="Key{letter} Digit{number} Numpad{number}"' in html
        assert f'<span class="mention-badge">{letter}</span><span lang="pl">{text}</span>' in html


@pytest.mark.django_db
@pytest.mark.parametrize("answer", [None, {"answer": None}, {"answer": "T"}, {"answer": "AB"}])
def test_no_choice_or_the_target_is_refused(answer):
    page = assigned_item("coreference", RECORD)
    assert page.submit(page.client(), answer).status_code == 422
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()


@pytest.mark.django_db
def test_chosen_letter_is_stored():
    page = assigned_item("coreference", RECORD)
    assert page.submit(page.client(), {"answer": "A"}).status_code == 200
    assert page.stored().answer == {"answer": "A"}
