"""The permission matrix: every URL of the URL configuration (enumerated from it, so a new URL
cannot be forgotten) × anonymous, annotator, another annotator, adjudicator, organizer × GET
and POST, each cell its expected status; a gold canary that never reaches an annotator, nor
an adjudicator until the organizer reveals the gold; and no GET that writes (on PostgreSQL,
which counts each table's written rows in the transaction)."""


import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.regex_helper import normalize

from tests.annotate.conftest import GOLD_MARK
from tests.writes import rows_written, tables_written

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "annotator", "other_annotator", "adjudicator", "organizer")
# The application's own URLs: "GET/POST" status for each role, in the order of ROLES. The
# annotator is assigned the dataset and owns the annotation; the other annotator is not.
APPLICATION = {
    "healthz":               "200/405 200/405 200/405 200/405 200/405",
    "api_datasets":          "403/403 200/405 200/405 403/405 200/405",
    "api_dataset_items":     "403/403 200/405 404/405 403/405 200/405",
    "api_dataset_agreement": "403/403 403/405 403/405 403/405 200/405",
    "api_annotations":       "403/403 200/400 200/400 403/403 403/403",
    "api_annotation":        "403/403 200/405 404/405 403/405 403/405",
    "api_token":             "405/400 405/400 405/400 405/400 405/400",
    "api_schema":            "403/403 200/405 200/405 200/405 200/405",
    "api_docs":              "302/302 200/405 200/405 200/405 200/405",
    "home":                  "302/302 200/405 200/405 200/405 200/405",
    "annotate_continue":     "302/302 302/405 404/404 403/403 403/403",  # POST: a routed dataset's next item
    "queue_done":            "302/302 200/405 404/405 403/403 403/403",
    "study_entry":           "404/404 404/404 404/404 404/404 404/404",
    "study_continue":        "302/302 404/405 404/405 404/405 404/405",
    "annotate_item":         "302/302 200/400 404/404 403/403 403/403",
    "my_answers":            "302/302 200/405 200/405 403/403 403/403",
    # POST only; without single_keys=on|off a 400.
    "key_settings":          "302/302 405/400 405/400 405/400 405/400",
    # The adjudicator's case is the first item: read, claimed (204), a decision without its fields (400).
    "api_adjudication_datasets": "403/403 403/405 403/405 200/405 403/405",
    "api_adjudication_queue":    "403/403 403/405 403/405 200/405 403/405",
    "api_adjudication_item":     "403/403 403/405 403/405 200/405 403/405",
    "api_adjudication_claim":    "403/403 405/403 405/403 405/204 405/403",
    "api_adjudication_decision": "403/403 405/403 405/403 405/400 405/403",
    "api_adjudication_settings": "403/403 403/405 403/405 403/405 200/405",
    "api_withdraw":              "403/403 405/403 405/403 405/403 405/400",
    "api_dataset_sample":        "403/403 403/405 403/405 403/405 200/405",
    "api_dataset_routing":       "403/403 403/405 403/405 403/405 200/405",
    # POST only; the campaign's dataset gives fixed queues: its annotator is refused (422).
    "api_next_item":             "403/403 405/422 405/404 405/403 405/403",
    # The gold audit: organizers; adjudicators only where the organizer allows it (not here).
    "api_gold_audit":            "403/403 403/405 403/405 403/405 200/405",
    "api_gold_audit_decision":   "403/403 405/403 405/403 405/403 405/400",  # POST without its fields
    "adjudicate_home":       "302/302 403/403 403/403 200/405 403/403",
    "adjudicate_continue":   "302/302 403/403 403/403 302/405 403/403",
    "adjudicate_done":       "302/302 403/403 403/403 200/405 403/403",
    "adjudicate_item":       "302/302 403/403 403/403 200/400 403/403",
    "organizer_datasets":    "302/302 403/403 403/403 403/403 200/405",
    "organizer_import":      "302/302 403/403 403/403 403/403 200/200",
    "organizer_dataset":     "302/302 403/403 403/403 403/403 200/400",
    "organizer_agreement":   "302/302 403/403 403/403 403/403 200/405",
    "organizer_items":       "302/302 403/403 403/403 403/403 200/405",
    "organizer_item":        "302/302 403/403 403/403 403/403 200/405",
    "organizer_adjudication": "302/302 403/403 403/403 403/403 200/405",
    "gold_audit":            "302/302 403/403 403/403 403/403 200/404",  # POST names no item
    "organizer_import_gold": "302/302 403/403 403/403 403/403 200/200",
    "organizer_removal":     "302/302 403/403 403/403 403/403 200/400",  # POST names no action
    "organizer_model_removal": "302/302 403/403 403/403 403/403 404/404",  # no model submission of that id
    "organizer_assign":      "302/302 403/403 403/403 403/403 200/200",
    "organizer_sample":      "302/302 403/403 403/403 403/403 200/200",  # POST names no action: the page again
    "organizer_export":      "302/302 403/403 403/403 403/403 200/405",
    "organizer_exports":     "302/302 403/403 403/403 403/403 200/405",
    "api_dataset_export":    "403/403 403/405 403/405 403/405 200/405",
    "api_dataset_report":    "403/403 403/405 403/405 403/405 200/405",
    "api_campaign_report":   "403/403 403/405 403/405 403/405 404/405",  # no campaign of that id
    "organizer_report":      "302/302 403/403 403/403 403/403 200/200",
    "organizer_campaigns":   "302/302 403/403 403/403 403/403 200/200",
    "organizer_campaign":    "302/302 403/403 403/403 403/403 404/405",  # no campaign of that id
    "organizer_report_compute":   "302/302 403/403 403/403 403/403 405/302",  # POST only: back to the report
    "organizer_campaign_compute": "302/302 403/403 403/403 403/403 405/404",  # no campaign of that id
    "organizer_campaign_protocol": "302/302 403/403 403/403 403/403 404/404",  # no campaign of that id
    "organizer_campaign_paper":    "302/302 403/403 403/403 403/403 405/404",  # no campaign of that id
    "organizer_campaign_release":  "302/302 403/403 403/403 403/403 405/404",  # no campaign of that id
    "organizer_studies":     "302/302 403/403 403/403 403/403 200/405",
    "organizer_study_new":   "302/302 403/403 403/403 403/403 200/422",  # POST without the settings
    "organizer_study":       "302/302 403/403 403/403 403/403 404/405",  # no study of that id
    "organizer_study_settings":  "302/302 403/403 403/403 403/403 404/404",  # no study of that id
    "organizer_study_state":     "302/302 403/403 403/403 403/403 405/404",  # POST only; no study of that id
    "organizer_study_reconcile": "302/302 403/403 403/403 403/403 405/404",  # POST only; no study of that id
    "organizer_study_delete_ids": "302/302 403/403 403/403 403/403 404/404",  # no study of that id
    "organizer_accounts":    "302/302 403/403 403/403 403/403 200/400",
    "organizer_training":    "302/302 403/403 403/403 403/403 200/400",
    "organizer_control_plot": "302/302 403/403 403/403 403/403 200/405",
    # The dataset has no training pool: no round to open, for its annotator or anyone.
    "training_round":        "302/302 404/405 404/405 403/403 403/403",
    "training_item":         "302/302 404/404 404/404 403/403 403/403",
    # The favicon is public: a redirect to the static file.
    "annotation.annotate.views.favicon": "302/405 302/405 302/405 302/405 302/405",
    # Django's account pages: the same for everyone, but a password change needs a login.
    "login":                  "200/200 200/200 200/200 200/200 200/200",
    "logout":                 "405/302 405/302 405/302 405/302 405/302",
    "password_change":        "302/302 200/200 200/200 200/200 200/200",
    "password_change_done":   "302/302 200/405 200/405 200/405 200/405",
    "password_reset_confirm": "200/200 200/200 200/200 200/200 200/200",
    "password_reset_complete": "200/405 200/405 200/405 200/405 200/405",
    "set_language":           "302/302 302/302 302/302 302/302 302/302",
}

# Answers that carry secrets (one-time links, the token) or the campaign's data (exports,
# reports and their downloads): Cache-Control no-store.
NO_STORE = {
    "organizer_accounts", "password_reset_confirm", "api_token", "organizer_export", "organizer_exports",
    "api_dataset_export", "organizer_report", "organizer_campaigns", "organizer_campaign", "api_dataset_report",
    "api_campaign_report", "organizer_studies", "organizer_study", "organizer_study_settings",
    "organizer_study_delete_ids",
}


# The one exception to "no GET writes" (docs/architecture.md): a report GET that finds no
# computation of the data as it is queues one, a StoredReport row and its task (computed
# inline in the tests, so its parts too); none of the campaign's data.
REPORT_GETS = {"organizer_report", "organizer_campaigns", "organizer_campaign", "api_dataset_report", "api_campaign_report"}
REPORT_TABLES = {"annotation_storedreport", "annotation_storedreportpart", "django_tasks_database_dbtaskresult"}


def every_url(resolver: URLResolver, prefix: str = "", namespace: str = ""):
    """(name, format string with %(parameter)s, parameter names) of every pattern, included ones too."""
    for entry in resolver.url_patterns:
        # The first reading of an optional group: the pattern with all its parameters.
        form, parameters = normalize(entry.pattern.regex.pattern)[0]
        form, parameters = prefix + form, [*parameters]
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            for name, inner_form, inner_parameters in every_url(entry, form, inner):
                yield name, inner_form, [*parameters, *inner_parameters]
        elif isinstance(entry, URLPattern):
            yield f"{namespace}{entry.name or entry.lookup_str}", form, parameters


def parameter_values(campaign_data) -> dict[str, dict[str, str]]:
    """URL name -> the values of its parameters ("" for every name without its own): objects
    of the campaign, so that the pages show them (the admin's: an object of the page's model)."""
    dataset, annotation, users = campaign_data
    item = annotation.item
    common = {
        "pk": str(dataset.pk), "dataset_pk": str(dataset.pk), "position": "1",
        "annotator": users["annotator"].username, "object_id": str(annotation.pk), "id": str(users["annotator"].pk),
        "app_label": "annotation", "url": "nowhere/", "uidb64": "MQ", "token": "set-password",
        "content_type_id": "1", "item_pk": str(annotation.item_id), "model_pk": "1",
    }
    objects = {"dataset": dataset, "item": item, "goldanswer": item.gold, "annotation": annotation,
               "assignment": item.assignments.first(), "user": users["annotator"]}
    values = {"": common, "api_annotation": {**common, "pk": str(annotation.pk)}}
    for name in ("api_adjudication_item", "api_adjudication_claim", "api_adjudication_decision", "api_withdraw",
                 "api_gold_audit_decision"):
        values[name] = {**common, "pk": str(item.pk)}
    for name, _form, _ in every_url(get_resolver()):
        model = name.removeprefix("admin:").rsplit("_", 1)[0].split("_", 1)[-1]
        if name.startswith("admin:") and model in objects:
            values[name] = {**common, "object_id": str(objects[model].pk)}
    return values


def client_of(user) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def run_matrix(campaign_data) -> dict[tuple[str, str, str, str], tuple[int, str, str, str, set[str]]]:
    """(URL name, URL, role, method) -> (status, body, redirect location, Cache-Control, tables
    the request wrote to) for every cell."""
    values = parameter_values(campaign_data)
    _, _, users = campaign_data
    cells = {}
    clients = {role: client_of(users[role]) for role in ROLES}
    for name, form, _parameters in every_url(get_resolver()):
        url = "/" + form % values.get(name, values[""])
        for role in ROLES:
            client = clients[role]
            if name.endswith("logout"):  # the next role's cells need the login back
                clients[role] = client_of(users[role])
            for method in ("GET", "POST"):
                before = rows_written()
                response = client.get(url) if method == "GET" else client.post(url, {})
                written = tables_written(before)
                streaming = getattr(response, "streaming", False)
                body = b"".join(response.streaming_content) if streaming else response.content
                cells[(name, url, role, method)] = (
                    response.status_code, body.decode("utf-8", "replace"), response.get("Location", ""),
                    response.get("Cache-Control", ""), written,
                )
    return cells


def expected(name: str, role: str, method: str) -> int | None:
    """The status of a cell; None for the admin's pages seen by an organizer (staff), which the
    admin's own model permissions decide (any answer but a server error)."""
    if name.startswith("admin:"):
        if role == "organizer":
            return None
        # Everyone else is sent to the admin's login, which itself is open.
        return 200 if name == "admin:login" else 302
    assert name in APPLICATION, f"{name}: a URL the permission matrix does not know; add its row to APPLICATION"
    get, post = APPLICATION[name].split()[ROLES.index(role)].split("/")
    return int(get if method == "GET" else post)


def test_every_cell_of_the_permission_matrix_and_the_gold_canary(campaign):
    dataset, _, _ = campaign
    cells = run_matrix(campaign)
    assert len(cells) >= 1000
    wrong = []
    for (name, url, role, method), (status, body, location, cache_control, written) in cells.items():
        want = expected(name, role, method)
        if want is None:
            if status >= 500:
                wrong.append(f"{method} {url} as {role}: {status}")
        elif status != want:
            wrong.append(f"{method} {url} as {role}: {status}, expected {want}")
        if role in ("anonymous", "annotator", "other_annotator", "adjudicator") and GOLD_MARK in body:
            wrong.append(f"{method} {url} as {role}: the gold canary in the response")
        if status == 302 and role == "anonymous" and name not in ("logout", "admin:logout", "set_language", "annotation.annotate.views.favicon"):
            login = "/admin/login/" if name.startswith("admin:") else "/accounts/login/"
            if not location.startswith(login):
                wrong.append(f"{method} {url} as {role}: sent to {location}, not to {login}")
        if method == "GET" and written - (REPORT_TABLES if name in REPORT_GETS else set()):
            wrong.append(f"GET {url} as {role}: wrote to {sorted(written)}")
        # No shared cache keeps what a logged-in user gets; secrets and data are not stored at all.
        directives = {part.strip() for part in cache_control.split(",")}
        if role != "anonymous" and not ({"private", "no-cache"} <= directives or "no-store" in directives):
            wrong.append(f"{method} {url} as {role}: Cache-Control {cache_control!r}")
        if name in NO_STORE and status == 200 and "no-store" not in directives:
            wrong.append(f"{method} {url} as {role}: Cache-Control {cache_control!r} without no-store")
    assert not wrong, "\n".join(wrong)
    # The canary is there to be found: the organizer sees it.
    assert any(GOLD_MARK in cell[1] for key, cell in cells.items() if key[2] == "organizer")
    assert not dataset.gold_revealed
