"""The discourse tree editor's server side: units in text order, the tree partial with the
scorer's problems as messages next to each unit, and submission of valid trees only."""

import json
import re

import pytest
from django.utils import translation

from annotation.models import Annotation
from annotation.subtasks.discourse.widget import tree_view, units_in_text_order
from annotation.subtasks.problem_texts import TREE_PROBLEM_TEXTS
from annotation.subtasks.widgets import widget_for
from scoring.subtasks.discourse import PASSAGE, TREE_MESSAGES, tree_problems
from tests.item_pages import HOSTILE, assigned_item, htmx_get, htmx_post


def passage(count: int, split: bool = True) -> dict:
    """A passage of `count` DUs; with `split`, DU "2.1" has two parts around DU "2.2"."""
    def unit(du_id: str, *parts: tuple[int, str]) -> dict:
        return {
            "du_id": du_id, "orig_id": f"o{du_id}", "sent_id": du_id.split(".")[0],
            "parts": [{"order": order, "text": text} for order, text in parts],
        }

    units = [unit(f"{n}.1", (n + 1, f"Zdanie {n}.")) for n in range(3, count)]
    head = [
        unit("1.1", (0, "Początek.")),
        unit("2.1", (3, "– to jest ważne."), (1, "To,")) if split else unit("2.1", (1, "To.")),
        unit("2.2", (2, "co mówi")),
    ]
    # Input order is not text order: the last DU comes first in the file.
    units = units[-1:] + head + units[:-1]
    return {"id": f"p-{count}", "document_id": "d", "passage_id": "d:1", "discourse_units": units}


def entry(du_id: str, head: str | None, relation: str | None) -> dict:
    return {"du_id": du_id, "head": head, "relation": relation}


def chain(du_ids: list[str], relation: str = "Elaboration") -> dict:
    """A valid tree: the first DU is the root, every other DU hangs from the one before."""
    return {
        "discourse_units": [
            {"du_id": du_id, "head": du_ids[index - 1] if index else None, "relation": relation if index else None}
            for index, du_id in enumerate(du_ids)
        ]
    }


def test_every_problem_code_of_the_tree_check_has_a_message():
    assert set(TREE_PROBLEM_TEXTS) == set(TREE_MESSAGES)


def test_every_code_the_tree_check_reports_is_drawn_as_its_own_message():
    record = passage(6)
    du_ids = [unit["du_id"] for unit in record["discourse_units"]]
    drafts = [
        {"discourse_units": []},  # missing_du, no_root
        {"discourse_units": [entry("1.1", None, "Cause"), entry("1.1", None, None)]},
        {"discourse_units": [entry("9.9", "7.7", "Nope"), entry("2.2", "2.2", None)]},
        {"discourse_units": [
            entry("1.1", None, None), entry("2.1", None, None), entry("3.1", "4.1", "Cause"), entry("4.1", "3.1", "Cause"),
        ]},
        {"discourse_units": ["not an object"]},
    ]
    seen: set[str] = set()
    for draft in drafts:
        codes = tree_problems(du_ids, draft["discourse_units"])
        view = tree_view(record, draft)
        by_id = {unit.du_id: unit for unit in view["units"]}
        for du_id, unit_codes in codes.items():
            seen.update(unit_codes)
            expected = [(code, str(TREE_PROBLEM_TEXTS[code])) for code in unit_codes]
            if du_id == PASSAGE:
                assert view["passage_problems"] == expected
            elif du_id in by_id:
                assert by_id[du_id].problems == expected
    # The drafts above reach every code; the test above holds the messages to them all.
    assert seen == set(TREE_MESSAGES)


def test_units_are_in_text_order_and_split_units_show_their_parts_in_order_with_a_gap():
    units = units_in_text_order(passage(6))
    assert [unit.du_id for unit in units] == ["1.1", "2.1", "2.2", "3.1", "4.1", "5.1"]
    assert [unit.number for unit in units] == [1, 2, 3, 4, 5, 6]
    split = units[1]
    assert [part.text for part in split.parts] == ["To,", "– to jest ważne."]
    assert [part.gap_before for part in split.parts] == [False, True]


def test_parts_that_follow_each_other_in_the_text_show_no_gap():
    record = passage(5, split=False)
    record["discourse_units"].append(
        {"du_id": "9.1", "orig_id": "o9", "sent_id": "9", "parts": [{"order": 11, "text": "b"}, {"order": 10, "text": "a"}]}
    )
    (joined,) = [unit for unit in units_in_text_order(record) if unit.du_id == "9.1"]
    assert [(part.text, part.gap_before) for part in joined.parts] == [("a", False), ("b", False)]


def test_tree_view_draws_the_tree_from_its_root_and_sets_cycles_apart():
    record = passage(7)
    draft = {"discourse_units": [
        {"du_id": "1.1", "head": None, "relation": None},
        {"du_id": "2.2", "head": "1.1", "relation": "Elaboration"},
        {"du_id": "2.1", "head": "1.1", "relation": "Cause"},
        {"du_id": "3.1", "head": "2.1", "relation": None},
        {"du_id": "4.1", "head": "5.1", "relation": "Contrast"},
        {"du_id": "5.1", "head": "4.1", "relation": "Contrast"},
    ]}
    view = tree_view(record, draft)
    assert [(row.unit.du_id, row.depth) for row in view["tree_rows"]] == [("1.1", 0), ("2.1", 1), ("3.1", 2), ("2.2", 1)]
    assert [unit.du_id for unit in view["detached"]] == ["4.1", "5.1"]
    assert [unit.du_id for unit in view["unattached"]] == ["6.1"]
    by_id = {unit.du_id: unit for unit in view["units"]}
    assert by_id["3.1"].head_number == 2
    assert by_id["4.1"].problems == [("cycle", str(TREE_PROBLEM_TEXTS["cycle"]))]


def test_every_problem_message_has_a_polish_translation():
    with translation.override("pl"):
        polish = {code: str(message) for code, message in TREE_PROBLEM_TEXTS.items()}
    with translation.override("en"):
        english = {code: str(message) for code, message in TREE_PROBLEM_TEXTS.items()}
    assert [code for code in TREE_PROBLEM_TEXTS if polish[code] == english[code]] == []


def test_widget_is_registered_for_discourse_with_its_tree_partial():
    widget = widget_for("discourse")
    assert widget.template == "annotation/widgets/discourse.html"
    assert widget.script == "annotation/widgets/discourse.js"
    assert set(widget.partials) == {"tree"}


def _row(html: str, number: int) -> str:
    match = re.search(rf'<li class="du-row[^"]*"[^>]*data-number="{number}">(.*?)</li>\s*(?=<li class="du-row|</ol>)', html, re.S)
    assert match, f"no row {number}"
    return match.group(1)


@pytest.mark.django_db
def test_tree_partial_puts_each_problem_next_to_its_unit_and_saves_nothing():
    assigned = assigned_item("discourse", passage(5))
    client = assigned.client()
    draft = {"discourse_units": [
        {"du_id": "1.1", "head": None, "relation": None},
        {"du_id": "2.1", "head": None, "relation": None},
        {"du_id": "3.1", "head": "4.1", "relation": "Cause"},
        {"du_id": "4.1", "head": "3.1", "relation": None},
    ]}
    response = assigned.partial(client, "tree", {"answer": json.dumps(draft)})
    assert response.status_code == 200
    html = response.content.decode()
    assert str(TREE_PROBLEM_TEXTS["multiple_roots"]) in _row(html, 1)
    assert str(TREE_PROBLEM_TEXTS["multiple_roots"]) in _row(html, 2)
    assert str(TREE_PROBLEM_TEXTS["cycle"]) in _row(html, 4)
    assert str(TREE_PROBLEM_TEXTS["missing_relation"]) in _row(html, 5)
    assert str(TREE_PROBLEM_TEXTS["missing_du"]) in _row(html, 3)
    assert str(TREE_PROBLEM_TEXTS["cycle"]) not in _row(html, 1)
    # The tree comes along out of band, for the pane beside the list.
    assert 'id="du-tree" hx-swap-oob="true"' in html
    assert assigned.stored() is None


@pytest.mark.django_db
def test_tree_partial_refuses_what_is_not_a_draft_and_takes_only_posts():
    assigned = assigned_item("discourse", passage(5))
    client = assigned.client()
    assert assigned.partial(client, "tree", {"answer": "{not json"}).status_code == 400
    assert assigned.partial(client, "tree", {"answer": "[1, 2]"}).status_code == 400
    assert htmx_get(client, f"{assigned.url}?partial=tree").status_code == 405


@pytest.mark.django_db
def test_tree_partial_is_only_for_the_annotator_of_the_item():
    assigned = assigned_item("discourse", passage(5))
    other = assigned_item("discourse", passage(5))
    response = assigned.partial(other.client(), "tree", {"answer": json.dumps(chain(["1.1"]))})
    assert response.status_code == 404


@pytest.mark.django_db
def test_item_page_shows_units_escaped_with_gap_marker_and_stored_tree():
    record = passage(5)
    next(unit for unit in record["discourse_units"] if unit["du_id"] == "2.2")["parts"][0]["text"] = HOSTILE
    assigned = assigned_item("discourse", record)
    client = assigned.client()
    du_ids = [unit.du_id for unit in units_in_text_order(record)]
    assert assigned.submit(client, chain(du_ids)).status_code == 200
    html = client.get(assigned.url).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert 'class="du-gap"' in _row(html, 2)
    assert _row(html, 2).index("To,") < _row(html, 2).index("to jest ważne")
    assert "Elaboration" in _row(html, 4) and 'class="du-head-number">3<' in _row(html, 4)
    assert html.count('class="relation-option"') == 21
    assert 'data-relation="Co-occurence"' in html


@pytest.mark.django_db
def test_only_a_valid_tree_is_submitted_and_a_draft_may_be_invalid():
    record = passage(10, split=False)
    assigned = assigned_item("discourse", record)
    client = assigned.client()
    du_ids = [unit.du_id for unit in units_in_text_order(record)]
    cycle = chain(du_ids)
    cycle["discourse_units"][0] = {"du_id": du_ids[0], "head": du_ids[-1], "relation": "Cause"}
    two_roots = chain(du_ids)
    two_roots["discourse_units"][5] = {"du_id": du_ids[5], "head": None, "relation": None}
    for invalid in (cycle, two_roots):
        assert assigned.submit(client, invalid).status_code == 422
        assert assigned.stored() is None

    draft = htmx_post(client, assigned.url, {"intent": "draft", "answer": json.dumps(cycle), "version": "0"})
    assert draft.status_code == 200
    assert assigned.stored().status == Annotation.Status.DRAFT

    valid = chain(du_ids)
    submitted = htmx_post(
        client, assigned.url, {"intent": "submit", "answer": json.dumps(valid), "version": str(assigned.stored().version)}
    )
    assert submitted.status_code == 200
    stored = assigned.stored()
    assert (stored.status, stored.answer) == (Annotation.Status.SUBMITTED, valid)
