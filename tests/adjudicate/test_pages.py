"""The adjudicator's pages and API: roles, the blind rule, decisions, stale and refused saves."""

import json

import pytest
from django.urls import reverse

from annotation.adjudicate.services import set_adjudication_settings
from annotation.adjudicate.views import NEXT_HEADER
from annotation.models import Adjudication, AdjudicationClaim
from tests.adjudicate.conftest import answered_dataset, person, wsd_answered
from tests.writes import rows_written, tables_written

pytestmark = pytest.mark.django_db

GOLD_LETTER = "D"


def adjudicator_urls(answered) -> list[str]:
    item = answered.items[0]
    return [
        reverse("adjudicate_home"),
        reverse("adjudicate_continue", args=[answered.dataset.pk]),
        reverse("adjudicate_done", args=[answered.dataset.pk]),
        answered.url(item),
        answered.url(item) + "?edit=1",
        reverse("api_adjudication_datasets"),
        reverse("api_adjudication_queue", args=[answered.dataset.pk]),
        reverse("api_adjudication_item", args=[item.pk]),
    ]


def gold_answered():
    # The gold letter is one nobody chose, so it can only reach a page as gold.
    return wsd_answered([["A", "B", "A"]], gold_letters=[GOLD_LETTER])


def test_annotators_are_refused_every_adjudication_page_and_endpoint(client):
    answered = gold_answered()
    client.force_login(answered.annotators[0])
    for url in adjudicator_urls(answered):
        assert client.get(url).status_code == 403, url


def test_an_adjudicator_who_annotates_the_dataset_is_refused_it(client):
    answered = gold_answered()
    both = answered.annotators[0]
    both.groups.add(person("adjudicator").groups.get())
    client.force_login(both)
    for url in adjudicator_urls(answered)[1:]:
        if "datasets/" in url and url.endswith("/datasets/"):
            continue
        assert client.get(url).status_code == 403, url
    assert client.get(reverse("api_adjudication_datasets")).json() == []
    response = client.post(answered.url(answered.items[0]), {"intent": "decide", "source": "edited",
                                                              "answer": '{"answer": "A"}', "version": "0"})
    assert response.status_code == 403
    assert not Adjudication.objects.exists()


def test_gold_reaches_no_adjudicator_response_until_revealed(client, adjudicator):
    answered = gold_answered()
    gold_line = json.dumps({"id": answered.items[0].external_id, "answer": GOLD_LETTER}, ensure_ascii=False)
    client.force_login(adjudicator)

    def bodies():
        return [client.get(url).content.decode() for url in adjudicator_urls(answered)]

    for body in bodies():
        assert f'"answer": "{GOLD_LETTER}"' not in body and "Answer key" not in body
    item_api = client.get(reverse("api_adjudication_item", args=[answered.items[0].pk])).json()
    assert item_api["gold"] is None

    set_adjudication_settings(answered.dataset, auto_majority=False, adjudicators_see_names=False, gold_revealed=True)
    page = client.get(answered.url(answered.items[0])).content.decode()
    # In the subtask's terms (the candidate, not the gold line's JSON), and among the differences.
    assert f'<p class="gold-answer"><strong>Answer key:</strong> <span lang="pl">{GOLD_LETTER}</span></p>' in page
    # Nobody chose it: the key is named among who gave it, and counted nowhere.
    assert f"<tr><th>{GOLD_LETTER}</th><td class=\"num\">0</td><td>Answer key</td></tr>" in page
    assert "&quot;id&quot;" not in page
    item_api = client.get(reverse("api_adjudication_item", args=[answered.items[0].pk])).json()
    assert item_api["gold"] == json.loads(gold_line)


def test_answers_are_anonymised_unless_the_organizer_shows_names(client, adjudicator):
    answered = gold_answered()
    client.force_login(adjudicator)
    page = client.get(answered.url(answered.items[0])).content.decode()
    assert "Annotator 1" in page and "Annotator 3" in page
    assert not any(a.username in page for a in answered.annotators)
    set_adjudication_settings(answered.dataset, auto_majority=False, adjudicators_see_names=True, gold_revealed=False)
    page = client.get(answered.url(answered.items[0])).content.decode()
    assert all(a.username in page for a in answered.annotators)


def test_a_decision_from_the_page_saves_and_goes_to_the_next_item(client, adjudicator):
    answered = wsd_answered([["A", "B"], ["C", "D"]])
    first, second = answered.items
    client.force_login(adjudicator)
    assert client.get(reverse("adjudicate_continue", args=[answered.dataset.pk])).url == answered.url(first)
    taken = first.annotations.get(annotator=answered.annotators[1])
    response = client.post(
        answered.url(first),
        {"intent": "decide", "source": "annotation", "annotation": str(taken.pk), "version": "0", "note": "B."},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and response["HX-Redirect"] == answered.url(second)
    adjudication = Adjudication.objects.get(item=first)
    assert (adjudication.answer, adjudication.adjudicator, adjudication.note) == ({"answer": "B"}, adjudicator, "B.")

    stale = client.post(
        answered.url(first), {"intent": "decide", "source": "edited", "answer": '{"answer": "C"}', "version": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert stale.status_code == 409 and "reload-item" in stale.content.decode()
    refused = client.post(
        answered.url(first), {"intent": "decide", "source": "edited", "answer": '{"answer": "Z"}', "version": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert refused.status_code == 422
    assert Adjudication.objects.get(item=first).version == 1


def test_the_item_page_writes_nothing_its_script_claims_the_item(client, adjudicator):
    answered = wsd_answered([["A", "B"], ["C", "D"]])
    first, second = answered.items
    client.force_login(adjudicator)
    before = rows_written()
    for url in (answered.url(first), answered.url(first) + "?edit=1", answered.url(first) + "?partial=nothing"):
        client.get(url)
    assert tables_written(before) == set() and not AdjudicationClaim.objects.exists()

    assert client.post(answered.url(first), {"intent": "claim"}).status_code == 204
    assert AdjudicationClaim.objects.get(item=first).adjudicator == adjudicator
    other = person("adjudicator")
    client.force_login(other)
    assert client.get(answered.url(first)).status_code == 200  # shown, not claimed
    opened = client.post(answered.url(first), {"intent": "claim"})
    assert opened.status_code == 409 and opened[NEXT_HEADER] == answered.url(second)
    assert "Another adjudicator is working on that item" in client.get(opened[NEXT_HEADER]).content.decode()
    renewed = client.post(answered.url(first), {"intent": "renew"})
    assert renewed.status_code == 409 and NEXT_HEADER not in renewed
    assert AdjudicationClaim.objects.get(item=first).adjudicator == adjudicator


def test_the_api_decides_with_the_same_rules(client, adjudicator):
    answered = wsd_answered([["A", "B"]])
    (item,) = answered.items
    client.force_login(adjudicator)
    url = reverse("api_adjudication_decision", args=[item.pk])
    assert client.get(reverse("api_adjudication_queue", args=[answered.dataset.pk])).json()[0]["item"] == item.pk
    created = client.post(url, {"source": "edited", "answer": {"answer": "C"}, "version": 0}, content_type="application/json")
    assert created.status_code == 201 and created.json()["version"] == 1
    assert client.post(url, {"source": "edited", "answer": {"answer": "D"}, "version": 0},
                       content_type="application/json").status_code == 409
    assert client.post(url, {"source": "majority", "version": 1}, content_type="application/json").status_code == 422
    other = person("adjudicator")
    client.force_login(other)
    assert client.post(reverse("api_adjudication_claim", args=[item.pk])).status_code == 204
    client.force_login(adjudicator)
    assert client.post(reverse("api_adjudication_claim", args=[item.pk])).status_code == 409
    assert client.post(url, {"source": "edited", "answer": {"answer": "D"}, "version": 1},
                       content_type="application/json").status_code == 409


def test_organizer_settings_and_withdrawal_through_the_api(client, adjudicator):
    answered = wsd_answered([["A", "B"], ["C", "D"]])
    organizer = person("organizer")
    client.force_login(adjudicator)
    settings_url = reverse("api_adjudication_settings", args=[answered.dataset.pk])
    assert client.get(settings_url).status_code == 403
    client.force_login(organizer)
    response = client.put(settings_url, {"auto_majority": False, "adjudicators_see_names": True,
                                         "gold_revealed": True}, content_type="application/json")
    # Without adjudicators_audit_gold a PUT keeps it as it is (off).
    assert response.json() == {"auto_majority": False, "adjudicators_see_names": True, "gold_revealed": True,
                               "adjudicators_audit_gold": False}
    withdraw = reverse("api_withdraw", args=[answered.items[0].pk])
    assert client.post(withdraw, {"reason": "Zepsute."}, content_type="application/json").status_code == 204
    client.force_login(adjudicator)
    queue = client.get(reverse("api_adjudication_queue", args=[answered.dataset.pk])).json()
    assert [entry["item"] for entry in queue] == [answered.items[1].pk]


@pytest.mark.parametrize("items", [3, 30])
def test_the_page_and_a_decision_run_a_fixed_number_of_queries(client, adjudicator, items,
                                                                 django_assert_max_num_queries):
    answered = wsd_answered([["A", "B", "C"]] * items)
    client.force_login(adjudicator)
    item = answered.items[items // 2]
    with django_assert_max_num_queries(15):
        assert client.get(answered.url(item)).status_code == 200
    with django_assert_max_num_queries(20):
        response = client.post(answered.url(item), {"intent": "decide", "source": "edited",
                                                    "answer": '{"answer": "A"}', "version": "0"})
    assert response.status_code == 302


def test_the_organizers_dataset_page_sets_adjudication_and_withdraws_a_flagged_item(client):
    answered = gold_answered()
    organizer = person("organizer")
    client.force_login(organizer)
    url = reverse("organizer_dataset", args=[answered.dataset.pk])
    page = client.get(url).content.decode()
    assert 'name="gold_revealed"' in page and 'name="auto_majority"' in page
    client.post(url, {"action": "adjudication", "gold_revealed": "on", "adjudicators_see_names": "on"})
    answered.dataset.refresh_from_db()
    assert (answered.dataset.gold_revealed, answered.dataset.adjudicators_see_names, answered.dataset.auto_majority) == (
        True, True, False
    )
    flag = answered.items[0].flags.create(raised_by=answered.annotators[0], comment="Zepsute.")
    response = client.post(url, {"action": "resolve", "flag": str(flag.pk), "note": "Wycofane.", "withdraw": "on"},
                           HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"] == url
    answered.items[0].refresh_from_db()
    assert answered.items[0].withdrawal_reason == "Wycofane."
    assert "withdrawn-items" in client.get(url).content.decode()


def test_a_revealed_numerals_key_shows_every_accepted_form(client, adjudicator):
    record = {"id": "n1", "sentence": "Mam [[5]] kotów."}
    answered = answered_dataset("numerals", [record], [[{"answer": "pięć"}, {"answer": "pięciu"}]],
                                gold=[{"id": "n1", "answers": ["pięć", "pięciorga"]}])
    set_adjudication_settings(answered.dataset, auto_majority=False, adjudicators_see_names=False, gold_revealed=True)
    client.force_login(adjudicator)
    page = client.get(answered.url(answered.items[0])).content.decode()
    assert ('<p class="gold-answer"><strong>Answer key:</strong> <span lang="pl">pięć</span> '
            '(Accepted forms: <span lang="pl">pięć, pięciorga</span>)</p>') in page
    # The key agrees with one annotator: named beside them, counted once (the answer alone).
    assert '<tr><th lang="pl">pięć</th><td class="num">1</td><td>Annotator 1, Answer key</td></tr>' in page


def test_the_settings_put_without_a_field_is_a_400_naming_it_and_patch_changes_some(client):
    answered = wsd_answered([["A", "B"]])
    client.force_login(person("organizer"))
    url = reverse("api_adjudication_settings", args=[answered.dataset.pk])
    before = client.get(url).json()
    response = client.put(url, {}, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        f"{field}: This field is required." for field in ("auto_majority", "adjudicators_see_names", "gold_revealed")
    ]
    response = client.put(url, {"auto_majority": True, "gold_revealed": True}, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["problems"] == ["adjudicators_see_names: This field is required."]
    assert client.get(url).json() == before  # nothing changed
    response = client.patch(url, {"gold_revealed": True}, content_type="application/json")
    assert response.status_code == 200
    assert response.json() == {**before, "gold_revealed": True}
    assert client.get(url).json() == {**before, "gold_revealed": True}
    assert client.patch(url, {"gold_revealed": "maybe"}, content_type="application/json").status_code == 400


def test_adjudicators_get_the_item_as_the_page_shows_it_not_the_organizers_extra_keys(client, adjudicator, monkeypatch):
    """An input line's keys outside its schema are kept for organizers; neither the adjudication
    page (with any widget, the raw one that shows every field it is given too) nor the API
    gives them to adjudicators."""
    from annotation.adjudicate import views
    from annotation.models import Item
    from annotation.subtasks.widgets.raw import raw_widget

    answered = wsd_answered([["A", "B"]])
    item = answered.items[0]
    item.payload = {**item.payload, "organizer_note": "CANARY-ORGANIZERS-ONLY"}
    Item.objects.filter(pk=item.pk).update(payload=item.payload)
    client.force_login(adjudicator)
    case = client.get(reverse("api_adjudication_item", args=[item.pk])).json()
    assert "organizer_note" not in case["payload"]
    assert case["payload"]["reference_sentence"] == item.payload["reference_sentence"]
    for url in (answered.url(item), answered.url(item) + "?edit=1"):
        assert "CANARY-ORGANIZERS-ONLY" not in client.get(url).content.decode()
    monkeypatch.setattr(views, "widget_for", raw_widget)
    page = client.get(answered.url(item)).content.decode()
    assert item.payload["reference_sentence"].split("[[")[0] in page  # the raw widget shows the fields
    assert "CANARY-ORGANIZERS-ONLY" not in page
