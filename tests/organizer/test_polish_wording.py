"""Polish wording the organizer and adjudicator pages got wrong: a verb as the header of the
open cases' column, a numeral with the wrong case of its noun."""

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from tests.adjudicate.conftest import person, wsd_answered

pytestmark = pytest.mark.django_db


def test_the_open_cases_column_is_headed_by_a_noun_phrase(client):
    wsd_answered([["A", "B"]])
    client.force_login(person("adjudicator"))
    page = client.get(reverse("adjudicate_home"), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    head = page.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "Otwarte" in head and "Otwórz" not in head


@pytest.mark.parametrize("rate", [2, 4, 5, 22])
def test_the_control_rate_reads_in_polish_whatever_the_number(rate):
    msgid = ("Training items: %(items)s; qualification threshold: %(threshold)s; one "
             "control item in %(rate)s positions (0: none), %(controls)s control items.")
    with translation.override("pl"):
        sentence = gettext(msgid) % {"items": 3, "threshold": "0,5", "rate": rate, "controls": 6}
    assert f"pozycji na jedną pozycję kontrolną: {rate} " in sentence
