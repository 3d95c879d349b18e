"""The comma-marker widget: cutting the sentence, the page it draws, what a save stores."""

import re

import pytest

from annotation.models import Annotation
from annotation.subtasks.commas.widget import Piece, context, marker_keys, sentence_pieces
from annotation.subtasks.widgets import widget_for
from tests.item_pages import HOSTILE, assigned_item

SENTENCE = "Na [1] plaży [2] kobieta [3] stawia [4] małe [5] dziecko [6] na [7] deskorolce [8]."
RECORD = {"id": "c-1", "sentence_with_positions": SENTENCE}


def test_sentence_is_cut_at_its_markers_in_order():
    pieces = sentence_pieces("Na [1] plaży [2]kobieta [3].")
    assert pieces == [
        Piece(text="Na"),
        Piece(marker=1, space_before=True, space_after=True, preview_gap=" "),
        Piece(text="plaży"),
        Piece(marker=2, space_before=True, space_after=False, preview_gap=" "),
        Piece(text="kobieta"),
        # Right before a full stop the comma (if any) follows the word with no space.
        Piece(marker=3, space_before=True, space_after=False, preview_gap=""),
        Piece(text="."),
    ]


def test_keys_are_digits_with_zero_for_ten_and_two_digits_above_ten_markers():
    assert [marker_keys(k, 10) for k in (1, 9, 10)] == ["1", "9", "0"]
    assert [marker_keys(k, 11) for k in (1, 10, 11)] == ["01", "10", "11"]
    assert marker_keys(100, 120) == ""


def test_context_takes_the_stored_answer_and_never_shows_a_position_as_both():
    shown = context(RECORD, {"commas": [5, 2, 2], "optional": [2, 7]})
    assert shown["required"] == [2, 5]
    assert shown["optional"] == [7]
    assert shown["marker_count"] == 8
    assert context(RECORD, None)["required"] == []


def test_widget_is_registered_for_commas():
    widget = widget_for("commas")
    assert widget.template == "annotation/widgets/commas.html"
    assert widget.script == "annotation/widgets/commas.js"


@pytest.mark.django_db
def test_item_page_draws_one_slot_per_marker_and_the_preview_with_stored_commas():
    assigned = assigned_item("commas", RECORD)
    client = assigned.client()
    assert assigned.submit(client, {"commas": [2], "optional": [7]}).status_code == 200
    html = client.get(assigned.url).content.decode()
    slots = re.findall(r'<button type="button" class="comma-slot" data-marker="(\d+)" data-state="(\w+)"', html)
    assert slots == [(str(k), {2: "required", 7: "optional"}.get(k, "none")) for k in range(1, 9)]
    marks = re.findall(r'class="comma-mark" data-marker="(\d+)" data-state="(\w+)"', html)
    assert ("2", "required") in marks and ("7", "optional") in marks and len(marks) == 8
    assert 'src="/static/annotation/widgets/commas.js"' in html


@pytest.mark.django_db
def test_item_text_is_escaped_before_markers_become_slots():
    assigned = assigned_item("commas", {"id": "c-2", "sentence_with_positions": f"{HOSTILE} [1] koniec [2]."})
    html = assigned.client().get(assigned.url).content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert 'data-marker="2"' in html


@pytest.mark.django_db
def test_submitted_answer_is_stored_as_sent_and_a_position_in_both_is_refused():
    assigned = assigned_item("commas", RECORD)
    client = assigned.client()
    refused = assigned.submit(client, {"commas": [3], "optional": [3]})
    assert refused.status_code == 422
    assert assigned.stored() is None

    assert assigned.submit(client, {"commas": [], "optional": []}).status_code == 200
    stored = assigned.stored()
    assert stored.status == Annotation.Status.SUBMITTED
    assert stored.answer == {"commas": [], "optional": []}
