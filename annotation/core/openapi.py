"""The errors every endpoint of the API can answer, added to each operation of the OpenAPI
schema (drf-spectacular's postprocessing hook, in settings.SPECTACULAR_SETTINGS), each with the
one body of a refusal (RefusalSerializer, annotation.core.http.api_exception_handler): an
operation's own statuses (a 409 of a stale save, a 429 of the token) are declared by its view."""

REFUSAL = {"$ref": "#/components/schemas/Refusal"}

# The middleware refuses U+0000 in any query string, DRF a field or parameter; the API needs a
# login or a token (annotation.core.roles says who may do what).
EVERY_OPERATION = {
    "400": "Refused parameters or fields, each named in problems (a parameter holding U+0000 too).",
    "403": "Not logged in, no valid token, or the user's role may not do this (or not yet: a refusal).",
}
WITH_OBJECT = {"404": "No such object, or none this user may see; or no such page of the list."}
WITH_BODY = {
    "413": "The body is over the upload limit (POLIS_MAX_UPLOAD_MB); nothing of it was read.",
    "415": "The body is not of a media type the operation lists.",
}


def document_errors(result: dict, generator, request, public) -> dict:
    """Adds to every operation the error statuses it can answer that it does not declare itself."""
    for operations in result["paths"].values():
        for operation in operations.values():
            errors = dict(EVERY_OPERATION)
            names = {parameter["name"] for parameter in operation.get("parameters", [])}
            if any(parameter["in"] == "path" for parameter in operation.get("parameters", [])) or "page" in names:
                errors.update(WITH_OBJECT)
            if "requestBody" in operation:
                errors.update(WITH_BODY)
            for status, description in errors.items():
                operation["responses"].setdefault(
                    status, {"content": {"application/json": {"schema": REFUSAL}}, "description": description}
                )
    return result
