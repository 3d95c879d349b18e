"""What operators rely on: the gunicorn configuration, /healthz, a 503 while the database is
out of reach (staged on a throwaway PostgreSQL cluster, never the shared server), and the
embedded SQLite database taking many annotators' saves at once without "database is locked"."""

import gc
import json
import os
import runpy
import subprocess
import threading
import urllib.request

import pytest
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client

from bench.load import Session, field
from tests.servers import BASE_DIR, PYTHON, ThrowawayPostgres, get_status, gunicorn, manage, server_env, set_up


def test_the_gunicorn_configuration_sets_what_production_needs():
    env = server_env("sqlite:///:memory:")
    result = subprocess.run(
        [PYTHON, "-m", "gunicorn", "--print-config", "-c", "deploy/gunicorn.conf.py", "polis_site.wsgi"],
        cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=60,
    )
    config = {}
    for line in result.stdout.splitlines():
        name, _, value = line.partition("=")
        config[name.strip()] = value.strip()
    assert int(config["timeout"]) >= 180
    assert int(config["graceful_timeout"]) >= 30
    assert int(config["max_requests"]) > 0 and int(config["max_requests_jitter"]) > 0
    assert config["preload_app"] == "True"
    assert config["worker_tmp_dir"] == "/dev/shm"
    assert "%(M)s" in config["access_log_format"]


def test_gunicorn_runs_two_workers_per_core_unless_web_concurrency_says_otherwise(monkeypatch):
    # A worker waiting on PostgreSQL leaves its core to the other (deploy/gunicorn.conf.py).
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert runpy.run_path(str(BASE_DIR / "deploy" / "gunicorn.conf.py"))["workers"] == 6
    monkeypatch.setenv("WEB_CONCURRENCY", "5")
    assert runpy.run_path(str(BASE_DIR / "deploy" / "gunicorn.conf.py"))["workers"] == 5


def test_the_application_loaded_before_the_workers_fork_is_out_of_the_garbage_collectors_reach():
    hooks = runpy.run_path(str(BASE_DIR / "deploy" / "gunicorn.conf.py"))
    gc.unfreeze()
    try:
        hooks["pre_fork"](None, None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_wsgi_application_imports_every_view_before_the_first_request():
    # With gunicorn's preload_app the master imports them once: a worker (and each worker that
    # replaces one) no longer spends its first request importing the URLconf and every view.
    env = server_env("sqlite:///:memory:")
    result = subprocess.run(
        [PYTHON, "-c", "import json, sys, polis_site.wsgi; print(json.dumps(sorted(sys.modules)))"],
        cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    imported = json.loads(result.stdout)
    assert "polis_site.urls" in imported
    assert "annotation.results.plots" in imported  # a view's module, imported by the URLconf


@pytest.mark.django_db
def test_healthz_answers_without_a_login_and_shows_no_data():
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "Set-Cookie" not in response.headers


@pytest.mark.django_db
def test_healthz_is_a_503_while_a_migration_is_not_applied():
    # Forget one applied migration (inside the test's transaction, rolled back after it).
    MigrationRecorder.Migration.objects.filter(app="annotation").order_by("-id")[:1].get().delete()
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "migrations not applied"}


def test_an_outage_of_the_database_is_a_503_with_retry_after_and_healthz_follows_it():
    """A throwaway cluster is started, served by gunicorn, stopped (the outage) and started again."""
    database = ThrowawayPostgres()
    try:
        database.start()
        env = server_env(database.url, CONN_MAX_AGE="60")
        setup = set_up(env, annotators=1, items=3)
        with gunicorn(env) as server:
            base = server.base
            annotator = Session(base)
            annotator.log_in("a0", "pass-Polis-123")
            page = f"/annotate/{setup['dataset']}/1/"
            assert annotator.request("GET", page)[0].status == 200

            database.stop()
            assert get_status(base + "/healthz") == 503
            response, body, _ = annotator.request("GET", page)
            assert response.status == 503 and response.getheader("Retry-After") == "10"
            assert response.getheader("Content-Type").startswith("text/html") and "<html" in body
            api = urllib.request.Request(
                base + "/api/datasets/", headers={"Authorization": f"Token {setup['tokens']['a0']}"}
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(api, timeout=10)
            assert refused.value.code == 503 and refused.value.headers["Retry-After"] == "10"
            assert "detail" in json.loads(refused.value.read())

            database.start()
            assert get_status(base + "/healthz") == 200
            assert annotator.request("GET", page)[0].status == 200
    finally:
        database.remove()


def test_twenty_annotators_saving_at_once_on_sqlite_lose_nothing(tmp_path):
    """20 clients, half through the item page and half through the API, each saving a draft and
    then submitting 4 items, on gunicorn with the demo's SQLite setup: every save acknowledged,
    and every acknowledged save stored."""
    env = server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    clients, items = 20, 4
    setup = set_up(env, annotators=clients, items=items)
    answer = json.dumps({"commas": [1], "optional": []})
    acknowledged: dict[tuple[str, int], int] = {}  # (annotator, position) -> last version acknowledged
    failures: list[str] = []

    def through_the_page(base: str, username: str) -> None:
        session = Session(base)
        session.log_in(username, "pass-Polis-123")
        for position in range(1, items + 1):
            path = f"/annotate/{setup['dataset']}/{position}/"
            _, page, _ = session.request("GET", path)
            token = field(page, "csrfmiddlewaretoken")
            version = field(page, "version")
            for intent in ("draft", "submit"):
                fields = {"csrfmiddlewaretoken": token, "answer": answer, "version": version,
                          "clock": field(page, "clock"), "intent": intent, "active_ms": "100"}
                response, body, _ = session.request(
                    "POST", path, fields, {"HX-Request": "true", "X-CSRFToken": token}
                )
                if response.status != 200 or not response.getheader("X-Polis-Version"):
                    failures.append(f"{username} {intent} {position}: {response.status} {body[:200]}")
                    return
                version = response.getheader("X-Polis-Version")
                acknowledged[(username, position)] = int(version)

    def through_the_api(base: str, username: str) -> None:
        headers = {"Authorization": f"Token {setup['tokens'][username]}", "Content-Type": "application/json"}
        listing = urllib.request.Request(f"{base}/api/datasets/{setup['dataset']}/items/", headers=headers)
        with urllib.request.urlopen(listing, timeout=30) as response:
            item_ids = [item["id"] for item in json.loads(response.read())["results"]]
        for position, item_id in enumerate(item_ids, start=1):
            version = 0
            for status in ("draft", "submitted"):
                body = json.dumps({"item": item_id, "answer": json.loads(answer), "status": status, "version": version})
                request = urllib.request.Request(f"{base}/api/annotations/", body.encode(), headers, method="POST")
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        version = json.loads(response.read())["version"]
                except urllib.error.HTTPError as error:
                    failures.append(f"{username} {status} {position}: {error.code} {error.read()[:200]!r}")
                    return
                acknowledged[(username, position)] = version

    with gunicorn(env) as server:
        base = server.base
        threads = [
            threading.Thread(target=through_the_page if number % 2 else through_the_api, args=(base, f"a{number}"))
            for number in range(clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert failures == []
    assert len(acknowledged) == clients * items and set(acknowledged.values()) == {2}
    stored = json.loads(manage(env, "shell", "-c", STORED).splitlines()[-1])
    assert stored == {"annotations": clients * items, "submitted_at_version_2": clients * items, "revisions": 2 * clients * items}


STORED = """
import json
from annotation.models import Annotation, AnnotationRevision
print(json.dumps({
    "annotations": Annotation.objects.count(),
    "submitted_at_version_2": Annotation.objects.filter(status="submitted", version=2).count(),
    "revisions": AnnotationRevision.objects.count(),
}))
"""
