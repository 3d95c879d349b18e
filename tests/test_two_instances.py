"""deploy/nginx.conf as it is (ports and paths replaced), load-balancing two gunicorn instances
on one PostgreSQL: an annotator's consecutive requests land on both instances, and the login,
CSRF, an autosave sent again and a stale save's refusal hold across them."""

import json
import re

from django.conf import settings

from bench.load import Session, field
from tests.servers import BASE_DIR, NGINX_CONFIG, ThrowawayPostgres, gunicorn, nginx, server_env, set_up, spare_port


def test_the_deployed_upload_limit_is_the_applications():
    limit = re.search(r"client_max_body_size (\d+)m;", NGINX_CONFIG.read_text())
    assert limit and int(limit.group(1)) * 1024 * 1024 == settings.POLIS_MAX_UPLOAD_BYTES


def test_two_instances_behind_nginx_serve_one_annotator_alike(tmp_path):
    database = ThrowawayPostgres()
    try:
        database.start()
        env = server_env(database.url, CONN_MAX_AGE="60", POLIS_PROXY="1", POLIS_MAX_UPLOAD_MB="1")
        setup = set_up(env, annotators=1, items=12)
        ports = [spare_port(), spare_port()]
        logs = [tmp_path / "first.log", tmp_path / "second.log"]
        with (
            gunicorn(env, workers=1, port=ports[0], access_log=str(logs[0])),
            gunicorn(env, workers=1, port=ports[1], access_log=str(logs[1])),
            nginx(ports, static=BASE_DIR / "static", max_body_mb=1) as base,
        ):
            annotator = Session(base)
            annotator.log_in("a0", "pass-Polis-123")  # the login form from one instance, its POST to the other
            path = f"/annotate/{setup['dataset']}/1/"
            response, page, _ = annotator.request("GET", path)
            assert response.status == 200
            token = field(page, "csrfmiddlewaretoken")
            headers = {"HX-Request": "true", "X-CSRFToken": token}

            def save(answer: dict, intent: str, version: int, where: str = path):
                fields = {"csrfmiddlewaretoken": token, "answer": json.dumps(answer), "version": str(version),
                          "clock": field(page, "clock"), "intent": intent, "active_ms": "100"}
                return annotator.request("POST", where, fields, headers)

            draft = {"commas": [1], "optional": []}
            for _ in range(2):  # the autosave, and the same autosave sent again (its reply was lost)
                response, _, _ = save(draft, "draft", 0)
                assert response.status == 200 and response.getheader("X-Polis-Version") == "1"
            # Another tab's save based on no answer, after the draft: refused as stale, on either instance.
            for _ in range(2):
                response, body, _ = save({"commas": [], "optional": []}, "draft", 0)
                assert response.status == 409 and response.getheader("X-Polis-Refused") == "1"
            response, body, _ = save(draft, "submit", 1)
            assert response.status == 200 and response.getheader("X-Polis-Version") == "2"
            # Save & next on to the end of the queue: every save lands on one instance or the other.
            position = 2
            while response.getheader("HX-Push-Url"):
                assert response.getheader("HX-Push-Url") == f"/annotate/{setup['dataset']}/{position}/"
                page, token = body, field(body, "csrfmiddlewaretoken")
                headers["X-CSRFToken"] = token
                response, body, _ = save(draft, "submit", 0, where=response.getheader("HX-Push-Url"))
                assert response.status == 200 and response.getheader("X-Polis-Version") == "1"
                position += 1
            assert position == 13 and response.getheader("HX-Redirect") == f"/annotate/{setup['dataset']}/done/"
            # A write without the CSRF token is refused whichever instance gets it.
            for _ in range(2):
                response, _, _ = annotator.request("POST", path, {"intent": "draft", "answer": "{}", "version": "2"})
                assert response.status == 403
            # nginx serves the static files, and refuses an upload past the limit before any instance reads it.
            response, script, _ = annotator.request("GET", "/static/annotation/core.js")
            assert response.status == 200 and "Polis" in script
            big = {"csrfmiddlewaretoken": token, "name": "x", "inputs": "x" * (1024 * 1024 + 1)}
            response, _, _ = annotator.request("POST", "/organize/import/", big)
            assert response.status == 413
        served = [log.read_text() for log in logs]
        for log in served:
            assert log.count('"POST /annotate/') >= 5, "nginx sent one instance too few of the saves"
        assert '"POST /accounts/login/' in "".join(served)
        assert "/organize/import/" not in "".join(served)
    finally:
        database.remove()
