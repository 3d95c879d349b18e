"""The API fuzzed against its own OpenAPI schema (schemathesis), in process through the
project's WSGI application (no server), the schema as it serves it: for each role with its API
token (and for no one, without a token), every operation with at most EXAMPLES generated requests, seeded (the same requests on
every run): valid ones and invalid ones, the ids in paths those of the campaign's objects or any
others, the token endpoint also given the role's own credentials. No answer may be a server
error, none may fall outside the schema (status, content type, body, headers), and no role may
get a 2xx where the permission matrix refuses it."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.urls import resolve
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from annotation.accounts.tokens import issue_token
from annotation.models import Campaign
from polis_site.wsgi import application
from tests.factories import DEFAULT_PASSWORD
from tests.security.test_permission_matrix import APPLICATION, ROLES

pytestmark = pytest.mark.django_db

EXAMPLES = 10
SEED = 33
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]


@pytest.fixture
def wsgi_app():
    """The project's WSGI application, its requests in the test's transaction: Django closes a
    connection in a transaction at each request's start and end, which would end the test's (the
    test client leaves these signals out the same way)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def refused(url_name: str, role: str) -> bool:
    """The permission matrix refuses the role there: each of its answers but 405 is a 403."""
    cell = APPLICATION[url_name].split()[ROLES.index(role)].split("/")
    return all(status == "403" for status in cell if status != "405")


def ids_in_paths(campaign) -> dict[str, int]:
    """URL name -> the id of the campaign's object its path names."""
    dataset, annotation, _ = campaign
    report_campaign = Campaign.objects.create(name="fuzzed")
    report_campaign.datasets.add(dataset)
    ids = {"api_annotation": annotation.pk, "api_campaign_report": report_campaign.pk}
    for name in ("api_adjudication_item", "api_adjudication_claim", "api_adjudication_decision", "api_withdraw"):
        ids[name] = annotation.item_id
    return ids


def url_name_of(operation) -> str:
    return resolve(operation.path.replace("{id}", "1")).url_name


def fuzz(operation, strategy, role: str, headers: dict) -> list[str]:
    """EXAMPLES requests of the strategy to the operation: what was wrong with each answer."""
    wrong = []

    @seed(SEED)
    @settings(max_examples=EXAMPLES, database=None, deadline=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def request(case):
        response = case.call(headers=headers)
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except FailureGroup as group:
            wrong.append(f"{role} {operation.label}: {group}")
        if 200 <= response.status_code < 300 and refused(url_name_of(operation), role):
            wrong.append(f"{role} {operation.label}: {response.status_code}, refused by the permission matrix "
                         f"({case.as_curl_command()})")

    request()
    return wrong


@pytest.mark.parametrize("role", ["anonymous", "annotator", "adjudicator", "organizer"])
def test_every_operation_answers_as_documented_and_as_the_roles_allow(campaign, wsgi_app, role):
    dataset, _, users = campaign
    user = users[role]
    # schemathesis asks for gzip as HTTP libraries do, and its WSGI transport hands the
    # compressed bytes over as they are: the checks are of the content, so ask for it plain.
    headers = {"Accept-Encoding": "identity", **({"Authorization": f"Token {issue_token(user).key}"} if user else {})}
    # The schema as the server gives it to anyone logged in.
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_app,
                                            headers={"Authorization": f"Token {issue_token(users['organizer']).key}"})
    ids = ids_in_paths(campaign)
    wrong, operations = [], 0
    for result in schema.get_all_operations():
        operation = result.ok()
        # Valid requests and invalid ones (each breaking the schema somewhere), ids any or real.
        strategies = [operation.as_strategy(mode) for mode in GenerationMode]
        if "{id}" in operation.path:
            real_id = {"id": ids.get(url_name_of(operation), dataset.pk)}
            strategies += [operation.as_strategy(mode, path_parameters=real_id) for mode in GenerationMode]
        if url_name_of(operation) == "api_token" and user:  # the role's own credentials too: a token
            credentials = {"username": user.username, "password": DEFAULT_PASSWORD}
            strategies.append(operation.as_strategy(body=credentials, media_type="application/json"))
        wrong += fuzz(operation, st.one_of(strategies), role, headers)
        operations += 1
    assert operations >= 20
    assert not wrong, "\n".join(wrong)
