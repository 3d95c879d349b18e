"""Every error of the API has the one body of a refusal (detail, problems, codes), whoever
answers it: a service, DRF, a middleware or the URL configuration; and the OpenAPI schema says
so for every operation, with its lists paginated and its exports' media types."""

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.exceptions import ErrorDetail

from annotation.accounts.tokens import issue_token
from annotation.core.converters import BIGINT_MAX
from annotation.core.http import drf_problems
from tests.annotate.conftest import wsd_records
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


def assert_refusal(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert {"detail", "problems", "codes"} <= set(body)
    assert body["problems"] and len(body["codes"]) == len(body["problems"])
    assert body["detail"] == " ".join(body["problems"])
    return body


@pytest.fixture
def organizer() -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {issue_token(make_user('organizer')).key}")


def test_a_field_or_parameter_refused_by_drf_is_named_with_drfs_code(organizer):
    dataset = make_dataset("wsd", wsd_records(1))
    url = reverse("api_withdraw", args=[dataset.items.get().pk])
    body = assert_refusal(organizer.post(url, {}, content_type="application/json"), 400)
    assert body == {"detail": "reason: This field is required.", "problems": ["reason: This field is required."],
                    "codes": ["required"]}
    body = assert_refusal(organizer.get(reverse("api_dataset_report", args=[dataset.pk]), {"seed": "-1"}), 400)
    assert body["problems"] == ["seed: a whole number from 0 to 2**63 - 1"] and body["codes"] == ["invalid"]


def test_drf_errors_nested_and_in_lists_are_named_as_the_scorer_names_fields():
    errors = {"answer": {"units": {2: {"head": [ErrorDetail("not a DU", "unknown_du")]}}},
              "non_field_errors": [ErrorDetail("no answer", "invalid")], "note": ["plain"]}
    assert [(str(problem), problem.code) for problem in drf_problems(errors)] == [
        ("answer.units[2].head: not a DU", "unknown_du"), ("no answer", "invalid"), ("note: plain", "")]


def test_refusals_of_drf_middlewares_and_urls_have_the_one_body(organizer):
    annotator = Client(HTTP_AUTHORIZATION=f"Token {issue_token(make_user('annotator')).key}")
    assert assert_refusal(annotator.get(reverse("api_dataset_agreement", args=[1])), 403)["codes"] == [
        "permission_denied"]
    assert assert_refusal(Client().get(reverse("api_datasets")), 403)["codes"] == ["not_authenticated"]
    assert assert_refusal(Client(HTTP_AUTHORIZATION="Token nope").get(reverse("api_datasets")), 403)["codes"] == [
        "authentication_failed"]
    assert assert_refusal(organizer.get(reverse("api_dataset_agreement", args=[1])), 404)["codes"] == ["not_found"]
    assert_refusal(organizer.delete(reverse("api_datasets")), 405)
    assert_refusal(organizer.post(reverse("api_token"), "x", content_type="text/plain"), 415)
    assert_refusal(organizer.get(reverse("api_datasets"), {"x": "a\x00b"}), 400)
    # Paths that are no endpoint, or name an id past the database's range: JSON, not Django's page.
    assert assert_refusal(organizer.get("/api/nothing/"), 404)["codes"] == ["no_such_endpoint"]
    assert_refusal(organizer.get(f"/api/datasets/{BIGINT_MAX + 1}/items/"), 404)
    assert Client().get("/nothing/").status_code == 404 and "text/html" in Client().get("/nothing/")["Content-Type"]
    with override_settings(POLIS_MAX_UPLOAD_BYTES=10):
        assert "The largest file" in assert_refusal(
            organizer.post(reverse("api_token"), "x" * 11, content_type="application/json"), 413)["detail"]


def test_the_schema_documents_errors_pages_exports_and_reports(organizer):
    schema = organizer.get(reverse("api_schema"), {"format": "json"}).json()
    refusal = {"$ref": "#/components/schemas/Refusal"}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert {"400", "403"} <= set(responses), f"{method} {path}"
            if "{id}" in path:
                assert responses["404"]["content"]["application/json"]["schema"] == refusal, f"{method} {path}"
            if "requestBody" in operation:
                assert {"413", "415"} <= set(responses), f"{method} {path}"
            for status, response in responses.items():
                if status >= "400":
                    assert response["content"]["application/json"]["schema"] == refusal, f"{method} {path} {status}"
    assert {"count", "next", "previous", "results"} <= set(schema["components"]["schemas"]["PaginatedItemList"]["properties"])
    items = schema["paths"]["/api/datasets/{id}/items/"]["get"]
    assert items["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PaginatedItemList"}
    assert {"page", "page_size"} <= {parameter["name"] for parameter in items["parameters"]}
    answers = schema["paths"]["/api/annotations/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert answers["schema"] == {"$ref": "#/components/schemas/PaginatedAnnotationList"}
    export = schema["paths"]["/api/datasets/{id}/export"]["get"]["responses"]["200"]["content"]
    assert set(export) == {"application/jsonl", "text/csv", "text/tab-separated-values", "application/json"}
    export_headers = schema["paths"]["/api/datasets/{id}/export"]["get"]["responses"]["200"]["headers"]
    assert set(export_headers) == {"X-Export-Left-Out", "X-Export-Filled", "X-Export-Complete", "X-Export-Pilot"}
    report = schema["paths"]["/api/datasets/{id}/report"]["get"]["responses"]
    assert report["202"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Computing"}
    assert "Retry-After" in report["202"]["headers"]
    token = schema["paths"]["/api/token/"]["post"]
    assert "Retry-After" in token["responses"]["429"]["headers"] and "security" not in token
    assert schema["paths"]["/api/datasets/{id}/items/"]["get"]["parameters"][0]["schema"]["maximum"] == BIGINT_MAX


def test_the_schema_is_valid_openapi_without_a_warning(tmp_path):
    """drf-spectacular's own check (an operation id given twice, a field it cannot type...)."""
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
