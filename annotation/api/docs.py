"""The API's documentation page, rendered on the server from the OpenAPI schema.

Swagger UI and Redoc would need their script bundles from another host; this page needs none.
"""

import json

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET
from drf_spectacular.generators import SchemaGenerator

METHODS = ("get", "post", "put", "patch", "delete")


def _operations(schema: dict) -> list[dict]:
    operations = []
    for path, entry in schema.get("paths", {}).items():
        for method in METHODS:
            if method not in entry:
                continue
            operation = entry[method]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            operations.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "description": operation.get("description", ""),
                    "parameters": operation.get("parameters", []),
                    "request": body.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1],
                    "responses": [
                        (code, response.get("content", {}).get("application/json", {}).get("schema", {}))
                        for code, response in operation.get("responses", {}).items()
                    ],
                }
            )
    return operations


@login_required
@require_GET
def api_docs(request: HttpRequest) -> HttpResponse:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema.get("components", {}).get("schemas", {})
    return TemplateResponse(
        request,
        "annotation/api_docs.html",
        {
            "info": schema.get("info", {}),
            "operations": _operations(schema),
            "components": [(name, json.dumps(body, indent=2)) for name, body in sorted(components.items())],
        },
    )
