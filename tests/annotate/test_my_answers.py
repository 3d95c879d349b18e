"""The "My answers" page: each answer in its subtask's terms, filters, own answers only,
a bounded number of queries."""


import pytest
from django.urls import reverse

from annotation.datasets.organizing import withdraw_item
from annotation.models import Annotation, Assignment
from tests.annotate.conftest import wsd_records
from tests.factories import assign_in_order, make_dataset, make_user
from tests.item_pages import item_url

COMMAS = {"id": "c1", "sentence_with_positions": "Na [1] plaży [2] kobieta [3] stawia [4] dziecko."}
ANSWERS = {
    "wsd": (wsd_records(1)[0], {"answer": "B"}, ['<strong>B</strong> B: <mark class="target">zamek</mark> nr 1.']),
    "coreference": (
        {"id": "k1", "context": "[A]Ala[/A] ma [B]kota[/B], [C]psa[/C] i [D]rybkę[/D], [T]który[/T] śpi.",
         "candidates": {"A": "Ala", "B": "kota", "C": "psa", "D": "rybkę"}},
        {"answer": "B"},
        ["<strong>B</strong> kota"],
    ),
    "morphosyntax": (
        {"id": "m1", "sentence": "Kot śpią na kanapie, a pies szczeka głośna."},
        {"answer": "NIEPOPRAWNE", "corrected_sentence": "Kot śpi na kanapie, a pies szczeka głośno."},
        ["NIEPOPRAWNE: <del>śpią</del> <ins>śpi</ins> … <del>głośna</del> <ins>głośno</ins>"],
    ),
    "numerals": ({"id": "n1", "sentence": "Mam [[20]] lat."}, {"answer": "dwadzieścia"}, ["dwadzieścia"]),
    "commas": (COMMAS, {"commas": [2], "optional": [3]}, ["Na plaży, kobieta(,) stawia dziecko."]),
    "discourse": (
        {"id": "d1", "document_id": "doc", "passage_id": "doc:1", "discourse_units": [
            {"du_id": "1.1", "orig_id": "a", "sent_id": "1", "parts": [{"order": 0, "text": "Padało,"}]},
            {"du_id": "1.2", "orig_id": "b", "sent_id": "1", "parts": [{"order": 1, "text": "więc zostałem."}]},
        ]},
        {"discourse_units": [{"du_id": "1.1", "head": None, "relation": None},
                             {"du_id": "1.2", "head": "1.1", "relation": "Causal"}]},
        ["tree: 2 units"],
    ),
}


def answered(annotator, subtask: str, record: dict, answer: dict, status: str = "submitted") -> Annotation:
    dataset = make_dataset(subtask, [record], name=f"{subtask}-set")
    (assignment,) = assign_in_order(dataset, annotator)
    return Annotation.objects.create(item=assignment.item, annotator=annotator, answer=answer, status=status)


@pytest.mark.django_db
def test_every_subtask_shows_its_answer_in_its_own_terms(client):
    annotator = make_user("annotator", username="ala")
    for subtask, (record, answer, _) in ANSWERS.items():
        answered(annotator, subtask, record, answer)
    client.force_login(annotator)
    page = client.get(reverse("my_answers")).content.decode()
    for subtask, (_, _, shown) in ANSWERS.items():
        for fragment in shown:
            assert fragment in page, subtask


@pytest.mark.django_db
def test_filters_by_dataset_and_status_and_shows_only_own_answers(client):
    annotator, other = make_user("annotator", username="ala"), make_user("annotator", username="ola")
    wsd = answered(annotator, "wsd", ANSWERS["wsd"][0], {"answer": "B"})
    commas = answered(annotator, "commas", COMMAS, {"commas": [1], "optional": []}, status="draft")
    theirs = make_dataset("numerals", [{"id": "x", "sentence": "[[7]] kotów"}], name="theirs")
    (their_assignment,) = assign_in_order(theirs, other)
    Annotation.objects.create(item=their_assignment.item, annotator=other, answer={"answer": "siedem"}, status="submitted")
    client.force_login(annotator)
    urls = {
        "wsd": item_url(wsd.item.dataset, 1),
        "commas": item_url(commas.item.dataset, 1),
    }

    def shown(**query) -> set[str]:
        page = client.get(reverse("my_answers"), query).content.decode()
        assert "siedem" not in page and "theirs" not in page
        return {name for name, url in urls.items() if url in page}

    assert shown() == {"wsd", "commas"}
    assert shown(status="draft") == {"commas"}
    assert shown(status="submitted") == {"wsd"}
    assert shown(dataset=str(commas.item.dataset_id)) == {"commas"}
    assert shown(dataset=str(commas.item.dataset_id), status="submitted") == set()
    # Another annotator's dataset is no choice: the filter is ignored, not a door.
    assert shown(dataset=str(theirs.pk)) == {"wsd", "commas"}
    assert "No answers match this filter." in client.get(reverse("my_answers"), {"status": "submitted", "dataset": str(commas.item.dataset_id)}).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("items", [3, 60])
def test_a_bounded_number_of_queries_whatever_the_number_of_answers(client, django_assert_max_num_queries, items):
    annotator = make_user("annotator", username="ala")
    for subtask in ("wsd", "commas"):
        records = wsd_records(items) if subtask == "wsd" else [{**COMMAS, "id": f"c{n}"} for n in range(items)]
        dataset = make_dataset(subtask, records, name=f"{subtask}-{items}")
        for assignment in assign_in_order(dataset, annotator):
            answer = {"answer": "A"} if subtask == "wsd" else {"commas": [1], "optional": []}
            Annotation.objects.create(item=assignment.item, annotator=annotator, answer=answer, status="submitted")
    client.force_login(annotator)
    with django_assert_max_num_queries(8):
        response = client.get(reverse("my_answers"), {"status": "submitted"})
    assert response.status_code == 200
    assert Assignment.objects.filter(annotator=annotator).count() == 2 * items


@pytest.mark.django_db
def test_an_answer_to_a_withdrawn_item_is_marked_and_only_viewed(client):
    annotator = make_user("annotator")
    kept = answered(annotator, "wsd", wsd_records(1)[0], {"answer": "B"})
    gone = answered(annotator, "numerals", ANSWERS["numerals"][0], {"answer": "dwadzieścia"})
    withdraw_item(gone.item, make_user("organizer"), "broken")
    client.force_login(annotator)
    rows = client.get(reverse("my_answers")).content.decode().split("<tr>")[2:]
    (withdrawn_row,) = [row for row in rows if "numerals-set" in row]
    (kept_row,) = [row for row in rows if "wsd-set" in row]
    assert 'class="badge withdrawn"' in withdrawn_row and ">View<" in withdrawn_row
    assert "withdrawn" not in kept_row and ">Open<" in kept_row and kept.item.withdrawn_at is None
