"""The organizer's item browser, one item's page and the adjudication's cases: what they show,
what they filter, that a page costs the same number of queries at any size, and who may see
them."""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Adjudication, AdjudicationRevision, Annotation, AnnotationRevision, Flag
from tests.factories import assign_in_order, make_dataset, make_user
from tests.organizer.conftest import import_sample, submit_answers

pytestmark = pytest.mark.django_db


def record(number: int, word: str = "zamek") -> dict:
    return {"id": f"item-{number:05}", "reference_sentence": f"Zdanie {number} o [[TARGET]]{word}[[/TARGET]].",
            "candidates": {"A": "pierwszy sens", "B": "drugi sens"}}


def answer(item, annotator, choice: str, submitted: bool = True) -> Annotation:
    return Annotation.objects.create(
        item=item, annotator=annotator, answer={"answer": choice},
        status=Annotation.Status.SUBMITTED if submitted else Annotation.Status.DRAFT,
        submitted_at=timezone.now() if submitted else None,
        normalised_answer=f'{{"answer": "{choice}"}}' if submitted else "", active_ms=4000,
    )


@pytest.fixture
def answered():
    """Five items, two annotators assigned each: item 0 complete and agreed, 1 a disagreement,
    2 partly answered, 3 unanswered and flagged, 4 withdrawn."""
    dataset = make_dataset("wsd", [record(n, "zamek" if n != 2 else "klucz") for n in range(5)],
                           gold=[{"id": record(n)["id"], "answer": "A"} for n in range(5)])
    first, second = make_user("annotator", "ala"), make_user("annotator", "ola")
    assign_in_order(dataset, first)
    assign_in_order(dataset, second)
    items = list(dataset.items.order_by("ordinal"))
    for annotator in (first, second):
        answer(items[0], annotator, "A")
    answer(items[1], first, "A")
    answer(items[1], second, "B")
    answer(items[2], first, "B")
    Flag.objects.create(item=items[3], raised_by=first, comment="Nie ma tu sensu C.")
    items[4].withdrawn_at, items[4].withdrawn_by = timezone.now(), first
    items[4].save()
    return dataset, items


def listed(client, dataset, **query) -> list[str]:
    response = client.get(reverse("organizer_items", args=[dataset.pk]), query)
    assert response.status_code == 200
    return [item.external_id for item in response.context["page"].object_list]


def test_the_browser_filters_by_state_and_searches_ids_and_text(organizer_client, answered):
    dataset, items = answered
    ids = [item.external_id for item in items]
    assert listed(organizer_client, dataset) == ids
    assert listed(organizer_client, dataset, state="complete") == [ids[0], ids[1]]
    assert listed(organizer_client, dataset, state="disagreement") == [ids[1]]
    assert listed(organizer_client, dataset, state="partly") == [ids[2]]
    assert listed(organizer_client, dataset, state="unanswered") == [ids[3]]
    Flag.objects.create(item=items[4], raised_by=items[4].withdrawn_by, comment="Zdanie bez sensu.")
    assert listed(organizer_client, dataset, state="flagged") == [ids[3]]  # the withdrawn item's flag aside
    assert listed(organizer_client, dataset, state="withdrawn") == [ids[4]]
    assert listed(organizer_client, dataset, q="00003") == [ids[3]]
    assert listed(organizer_client, dataset, q="KLUCZ") == [ids[2]]  # the input's text, case ignored
    assert listed(organizer_client, dataset, state="nonsense") == ids  # an unknown state: every item
    assert listed(organizer_client, dataset, sort="-answers")[:2] == [ids[0], ids[1]]
    assert listed(organizer_client, dataset, sort="answers")[-2:] == [ids[0], ids[1]]


def test_the_browser_pages_and_its_links_keep_the_search(organizer_client):
    dataset = make_dataset("wsd", [record(n) for n in range(120)])
    assert listed(organizer_client, dataset, page="3") == [record(n)["id"] for n in range(100, 120)]
    assert listed(organizer_client, dataset, page="99") == listed(organizer_client, dataset, page="3")
    body = organizer_client.get(reverse("organizer_items", args=[dataset.pk]), {"q": "zamek", "page": "2"}).content.decode()
    assert "q=zamek&amp;state=&amp;sort=position&amp;page=3" in body


@pytest.mark.parametrize("size", [20, 400])
def test_a_page_of_the_browser_costs_the_same_queries_at_any_size(organizer_client, django_assert_max_num_queries, size):
    dataset = make_dataset("wsd", [record(n) for n in range(size)])
    annotators = [make_user("annotator") for _ in range(3)]
    for annotator in annotators:
        assign_in_order(dataset, annotator)
    Annotation.objects.bulk_create(
        Annotation(item=item, annotator=annotator, answer={"answer": "A"}, status=Annotation.Status.SUBMITTED,
                   submitted_at=timezone.now(), normalised_answer=f'"{item.ordinal % 2 * index}"')
        for item in dataset.items.all() for index, annotator in enumerate(annotators)
    )
    for state in ("", "disagreement", "complete"):
        with django_assert_max_num_queries(6):  # session, user, dataset; count, the page's ids, its items
            listed(organizer_client, dataset, state=state, q="zdanie", sort="-answers")


def test_the_item_page_shows_answers_revisions_flags_adjudication_and_gold(organizer_client, answered):
    dataset, items = answered
    item = items[1]
    annotation = Annotation.objects.get(item=item, annotator__username="ola")
    AnnotationRevision.objects.create(annotation=annotation, version=1, answer={"answer": "B"},
                                      status="submitted", active_ms=4000)
    adjudicator = make_user("adjudicator", "ewa")
    adjudication = Adjudication.objects.create(item=item, answer={"answer": "A"}, source="edited",
                                               adjudicator=adjudicator, decided_at=timezone.now())
    AdjudicationRevision.objects.create(adjudication=adjudication, version=1, answer={"answer": "A"},
                                        source="edited", adjudicator=adjudicator, note="Sens pierwszy.")
    Flag.objects.create(item=item, raised_by=annotation.annotator, comment="Dwa sensy pasują.")
    response = organizer_client.get(reverse("organizer_item", args=[dataset.pk, item.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    for shown in ("ala", "ola", "Dwa sensy pasują.", "Sens pierwszy.", "ewa", 'id="item-gold"', "Zdanie 1 o"):
        assert shown in body
    assert 'id="item-input"' in body and "inert" in body  # the widget, read only
    assert "<td class=\"num\">4</td>" in body  # the revision's active time, in seconds
    other = make_dataset("wsd", [record(9)])
    assert organizer_client.get(reverse("organizer_item", args=[other.pk, item.pk])).status_code == 404


@pytest.mark.parametrize("annotators", [2, 20])
def test_the_item_page_costs_the_same_queries_at_any_number_of_answers(
    organizer_client, django_assert_max_num_queries, annotators
):
    dataset = make_dataset("wsd", [record(0)], gold=[{"id": record(0)["id"], "answer": "A"}])
    item = dataset.items.get()
    for number in range(annotators):
        annotator = make_user("annotator")
        annotation = answer(item, annotator, "AB"[number % 2])
        AnnotationRevision.objects.bulk_create(
            AnnotationRevision(annotation=annotation, version=version, answer={"answer": "A"}, status="draft")
            for version in (1, 2)
        )
        Flag.objects.create(item=item, raised_by=annotator, comment=f"Uwaga {number}")
    with django_assert_max_num_queries(10):
        assert organizer_client.get(reverse("organizer_item", args=[dataset.pk, item.pk])).status_code == 200


def test_flags_and_disagreements_link_to_the_item_page(organizer_client, answered):
    dataset, items = answered
    detail = organizer_client.get(reverse("organizer_dataset", args=[dataset.pk])).content.decode()
    assert reverse("organizer_item", args=[dataset.pk, items[3].pk]) in detail
    assert reverse("organizer_items", args=[dataset.pk]) in detail
    assert reverse("organizer_adjudication", args=[dataset.pk]) in detail
    agreement = organizer_client.get(reverse("organizer_agreement", args=[dataset.pk])).content.decode()
    assert reverse("organizer_item", args=[dataset.pk, items[1].pk]) in agreement


def test_the_adjudication_overview_shows_open_stale_and_settled_cases(organizer_client, answered):
    dataset, items = answered
    response = organizer_client.get(reverse("organizer_adjudication", args=[dataset.pk]))
    rows = response.context["by_status"]
    assert [row.item_id for row in rows["open"]] == [items[1].pk]
    assert rows["settled"] == [] and rows["stale"] == []
    adjudicator = make_user("adjudicator", "ewa")
    Adjudication.objects.create(item=items[1], answer={"answer": "A"}, source="edited",
                                adjudicator=adjudicator, decided_at=timezone.now())
    response = organizer_client.get(reverse("organizer_adjudication", args=[dataset.pk]))
    (settled,) = response.context["by_status"]["settled"]
    assert settled.settled_by == "ewa" and settled.decided_at is not None
    body = response.content.decode()
    assert reverse("organizer_item", args=[dataset.pk, items[1].pk]) in body
    assert reverse("adjudicate_continue", args=[dataset.pk]) not in body  # the organizer adjudicates nothing
    Annotation.objects.filter(item=items[1], annotator__username="ola").update(submitted_at=timezone.now())
    stale = organizer_client.get(reverse("organizer_adjudication", args=[dataset.pk])).context["by_status"]["stale"]
    assert [row.item_id for row in stale] == [items[1].pk]


@pytest.mark.parametrize("role", ["annotator", "adjudicator"])
def test_annotators_and_adjudicators_are_refused(client, answered, role):
    dataset, items = answered
    client.force_login(make_user(role))
    for url in (reverse("organizer_items", args=[dataset.pk]), reverse("organizer_item", args=[dataset.pk, items[0].pk]),
                reverse("organizer_adjudication", args=[dataset.pk])):
        assert client.get(url).status_code == 403



def test_the_item_page_shows_every_subtasks_widget(organizer_client, subtask):
    dataset = import_sample(subtask)
    annotator = make_user("annotator")
    assign_in_order(dataset, annotator)
    submit_answers(dataset, annotator)
    item = dataset.items.order_by("ordinal").first()
    response = organizer_client.get(reverse("organizer_item", args=[dataset.pk, item.pk]), HTTP_ACCEPT_LANGUAGE="pl")
    body = response.content.decode()
    assert response.status_code == 200
    assert annotator.username in body and "Pola odpowiedzi" in body  # in Polish
