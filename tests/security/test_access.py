"""Every page and endpoint needs a login; error pages are the project's own, translated, and
show no internals; an annotator's partials and writes reach only their own items."""

import json
import re

import pytest
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotation.models import Flag
from tests.annotate.conftest import GOLD_MARK
from tests.factories import make_user
from tests.item_pages import htmx_get, htmx_post, item_url

pytestmark = pytest.mark.django_db

# Public on purpose: the login pages, the language switch, and the token endpoint (it takes a password).
# healthz: public by design, and shows no data (tests/security/test_operations.py); favicon.ico
# leads to the icon.
PUBLIC_PREFIXES = ("admin/", "accounts/", "i18n/", "api/token/", "healthz", "favicon.ico")
# A panel study's entry link: participants come without an account (its consent makes one);
# everything after it needs the login the entry gives (tests/studies/test_entry.py).
PUBLIC_NAMES = {"study_entry"}


def _patterns(resolver: URLResolver, prefix: str = ""):
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.name


def _url(route: str, values: dict) -> str:
    for name, value in values.items():
        route = re.sub(rf"<\w+:{name}>", str(value), route)
    assert "<" not in route, route
    return "/" + route


def test_every_page_and_endpoint_needs_a_login(morphosyntax_queue):
    annotator, dataset = morphosyntax_queue
    values = {
        "dataset_pk": dataset.pk, "pk": dataset.pk, "position": 1, "annotator": annotator.username,
        "item_pk": dataset.items.first().pk, "model_pk": 1, "token": "no-such-study",
    }
    routes = [(route, name) for route, name in _patterns(get_resolver())
              if not route.startswith(PUBLIC_PREFIXES) and name not in PUBLIC_NAMES]
    assert len(routes) >= 17
    client = Client()
    for route, name in routes:
        url = _url(route, values)
        for method in (client.get, client.post):
            response = method(url)
            if route.startswith("api/") and name != "api_docs":  # the docs are a page
                assert response.status_code in (401, 403), (name, response.status_code)
            else:
                assert response.status_code in (302, 405), (name, response.status_code)
                if response.status_code == 302:
                    assert response.url.startswith(reverse("login")), name
            assert GOLD_MARK not in response.content.decode(), name


def test_an_annotator_reaches_no_organizer_page(morphosyntax_queue):
    annotator, dataset = morphosyntax_queue
    client = Client()
    client.force_login(annotator)
    values = {"pk": dataset.pk, "annotator": annotator.username, "model_pk": 1, "item_pk": dataset.items.first().pk}
    for route, name in _patterns(get_resolver()):
        if route.startswith("organize/"):
            response = client.get(_url(route, values))
            assert response.status_code == 403, name
            assert GOLD_MARK not in response.content.decode(), name


def test_partials_and_writes_on_another_annotators_item_are_404(morphosyntax_queue):
    _, dataset = morphosyntax_queue
    intruder = make_user("annotator")
    client = Client()
    client.force_login(intruder)
    url = item_url(dataset, 1)
    assert htmx_get(client, url + "?partial=diff", {"corrected_sentence": "x"}).status_code == 404
    assert htmx_post(client, url + "?partial=diff", {"corrected_sentence": "x"}).status_code == 404
    for data in ({"intent": "skip"}, {"intent": "flag", "comment": "zły"}):
        assert htmx_post(client, url, data).status_code == 404
    assert not Flag.objects.exists()
    assert not dataset.assignments.filter(skipped_at__isnull=False).exists()


def test_an_unknown_partial_is_404(morphosyntax_queue):
    annotator, dataset = morphosyntax_queue
    client = Client()
    client.force_login(annotator)
    assert htmx_get(client, item_url(dataset, 1) + "?partial=nope").status_code == 404


def test_the_error_pages_are_the_projects_own_and_show_no_internals(morphosyntax_queue):
    annotator, dataset = morphosyntax_queue
    client = Client()
    client.force_login(annotator)
    not_found = client.get(item_url(dataset, 99))
    assert not_found.status_code == 404
    assert "Page not found" in not_found.content.decode() and "PoLiS Annotate" in not_found.content.decode()
    forbidden = client.get(reverse("organizer_datasets"))
    assert forbidden.status_code == 403
    assert "Not allowed" in forbidden.content.decode()
    for body in (not_found.content.decode(), forbidden.content.decode()):
        assert "Traceback" not in body and "URLconf" not in body and GOLD_MARK not in body


@override_settings(DEBUG=False)
def test_the_server_error_page_is_the_projects_own_and_shows_no_internals():
    from django.test import RequestFactory
    from django.views.defaults import server_error

    body = server_error(RequestFactory().get("/")).content.decode()
    assert "Server error" in body and "PoLiS Annotate" in body
    assert "Traceback" not in body


def test_every_write_of_the_item_page_needs_the_csrf_token(morphosyntax_queue):
    annotator, dataset = morphosyntax_queue
    client = Client(enforce_csrf_checks=True)
    client.force_login(annotator)
    url = item_url(dataset, 1)
    answer = json.dumps({"answer": "POPRAWNE", "corrected_sentence": ""})
    for data in (
        {"intent": "draft", "answer": answer, "version": "0"},
        {"intent": "submit", "answer": answer, "version": "0"},
        {"intent": "skip"},
        {"intent": "flag", "comment": "zły"},
    ):
        assert htmx_post(client, url, data).status_code == 403, data
    assert htmx_post(client, url + "?partial=diff", {"corrected_sentence": "x"}).status_code == 403
    assert not dataset.assignments.filter(skipped_at__isnull=False).exists()
    assert not Flag.objects.exists() and not annotator.annotations.exists()


def test_there_is_no_e_mail_password_reset_to_ask_for(client):
    """The site sends no e-mail: Django's reset form (which tried localhost:25) and its "sent"
    page are gone; the one-time link an organizer hands out is confirmed as before."""
    from django.core import mail
    from django.urls import NoReverseMatch

    from annotation.accounts.services import password_link

    user = make_user("annotator")
    user.email = "someone@example.org"
    user.save()
    for path in ("/accounts/password_reset/", "/accounts/password_reset/done/"):
        assert client.get(path).status_code == 404
        assert client.post(path, {"email": user.email}).status_code == 404
    assert not mail.outbox
    for name in ("password_reset", "password_reset_done"):
        with pytest.raises(NoReverseMatch):
            reverse(name)
    assert client.get(password_link(user), follow=True).status_code == 200
    assert client.get(reverse("password_reset_complete")).status_code == 200
