"""How a refusal of a service answers over HTTP, the same on pages and in the API; how an
export is downloaded, the same on its page and in the API.

A refused answer or file is 422 (Unprocessable Content); a save based on an old version and
answers that cannot be exported conflict with what is stored (409), as do a decision based on
an old version and one on an item another adjudicator holds; a frozen dataset forbids the
change (403), as do answering a withdrawn item, adjudicating a dataset one annotates, and
working on a dataset's items before passing its training round, and an organizer's action on
an organizer's or a superuser's account. What a page's form posts as JSON (an answer) is read
the same on every page (``posted_json``). What DRF itself refuses in the API (a field missing,
no permission, no such object) has the same body as a refusal (``api_exception_handler``).
"""

import json

from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.views import exception_handler

from annotation.core.errors import (
    ClaimedByOther,
    DatasetFrozen,
    ItemWithdrawn,
    NeedsConfirmation,
    NotAdjudicatorHere,
    NotExportable,
    NotQualified,
    NotYoursToManage,
    Refused,
    StaleDecision,
    StaleVersion,
)
from annotation.core.problems import problem
from scoring.problems import Problem

STATUS = {
    StaleVersion: 409,
    StaleDecision: 409,
    ClaimedByOther: 409,
    NotExportable: 409,
    DatasetFrozen: 403,
    ItemWithdrawn: 403,
    NotAdjudicatorHere: 403,
    NotQualified: 403,
    NotYoursToManage: 403,
}


REFUSED = 422

API_PREFIX = "/api/"


def refusal_status(refused: Refused) -> int:
    return next((STATUS[kind] for kind in type(refused).__mro__ if kind in STATUS), REFUSED)


def refusal_data(refused: Refused) -> dict:
    """The API's body of a refusal: ``detail`` (one line), ``problems`` (one message each,
    "field: text"), ``codes`` (each problem's code),
    for a stale save ``current_version``, for a save to confirm ``needs_confirmation``."""
    data = {
        "detail": " ".join(refused.messages),
        "problems": refused.messages,
        "codes": [problem.code for problem in refused.problems],
    }
    if isinstance(refused, (StaleVersion, StaleDecision)):
        data["current_version"] = refused.current.version
    if isinstance(refused, NeedsConfirmation):
        data["needs_confirmation"] = True
    return data


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def refusal_json(refused: Refused, status: int) -> JsonResponse:
    """An API refusal made outside DRF's views (a middleware, an error handler): the same body."""
    return JsonResponse(refusal_data(refused), status=status)


def api_exception_handler(exc: Exception, context: dict):
    """DRF's exception handler (settings.REST_FRAMEWORK), its answers given the body of a
    refusal: a request DRF refuses (400 naming each field, 403, 404, 405, 415, 429...) reads as
    one a service refuses, so the API has one error body (RefusalSerializer)."""
    response = exception_handler(exc, context)
    if response is not None:
        if isinstance(exc, ValidationError):
            problems = list(drf_problems(response.data))
        else:
            problems = list(drf_problems(response.data.get("detail", "")))
        response.data = refusal_data(Refused(problems))
    return response


def drf_problems(errors, field: str = ""):
    """One Problem per message of a DRF error (the messages of its fields, nested ones with a
    dotted path and list indices, as the scorer names them), each with DRF's error code."""
    if isinstance(errors, dict):  # fields by name; a list field's entries by their index
        for name, inner in errors.items():
            if name == "non_field_errors":
                inner_field = field
            elif isinstance(name, int):
                inner_field = f"{field}[{name}]"
            else:
                inner_field = f"{field}.{name}" if field else name
            yield from drf_problems(inner, inner_field)
    elif isinstance(errors, list):
        for index, inner in enumerate(errors):
            yield from drf_problems(inner, f"{field}[{index}]" if isinstance(inner, (dict, list)) else field)
    else:
        yield Problem(field, str(errors), errors.code if isinstance(errors, ErrorDetail) else "")


def posted_object(request: HttpRequest, model, field: str):
    pk = request.POST.get(field, "")
    if "\x00" in pk:
        raise BadRequest(str(problem("unstorable/parameter", field)))
    if not pk.isdecimal():  # not an id at all: no such object, rather than a crash
        raise Http404
    return get_object_or_404(model, pk=int(pk))


def posted_json(request: HttpRequest, field: str) -> object:
    """The JSON value posted in the form field ``field``: None when the field is missing or
    empty or holds no JSON (the services refuse None as no answer). Raises Refused (code
    ``too_deep``, as an answer too deep for the limits) when it is nested too deeply for
    Python to read."""
    try:
        return json.loads(request.POST.get(field) or "null")
    except ValueError:
        return None
    except RecursionError:
        raise Refused.of("too_deep/posted", field) from None
