"""The database session store (polis_site/sessions.py): its one-query read behaves as Django's."""

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone

from polis_site.sessions import SessionStore

pytestmark = pytest.mark.django_db


def test_a_live_session_is_read_back():
    store = SessionStore()
    store["answer"] = "B"
    store.save()
    assert SessionStore(store.session_key).load() == {"answer": "B"}


def test_an_unknown_key_is_dropped_and_a_new_one_made_on_save():
    store = SessionStore("x" * 32)
    assert store.load() == {}
    assert store.session_key is None  # never the key a client chose
    store["answer"] = "C"
    store.save()
    assert store.session_key != "x" * 32
    assert Session.objects.filter(session_key=store.session_key).exists()


def test_an_expired_session_is_not_read():
    store = SessionStore()
    store["answer"] = "D"
    store.save()
    Session.objects.filter(session_key=store.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = SessionStore(store.session_key)
    assert expired.load() == {}
    assert expired.session_key is None
