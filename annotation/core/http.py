"""How a refusal of a service answers over HTTP, the same on pages and in the API; how an
export is downloaded, the same on its page and in the API.

A refused answer or file is 422 (Unprocessable Content); a save based on an old version and
answers that cannot be exported conflict with what is stored (409), as do a decision based on
an old version and one on an item another adjudicator holds; a frozen dataset forbids the
change (403), as do answering a withdrawn item, adjudicating a dataset one annotates, and
working on a dataset's items before passing its training round, and an organizer's action on
an organizer's or a superuser's account. What a page's form posts as JSON (an answer) is read
the same on every page (``posted_json``).
"""

import json

from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

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


def refusal_status(refused: Refused) -> int:
    return next((STATUS[kind] for kind in type(refused).__mro__ if kind in STATUS), REFUSED)


def refusal_data(refused: Refused) -> dict:
    """The API's body of a refusal: ``detail`` (one line), ``problems`` (one message each,
    "field: text"), ``codes`` (each problem's code, "" for one the app wrote),
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


def posted_object(request: HttpRequest, model, field: str):
    pk = request.POST.get(field, "")
    if "\x00" in pk:
        raise BadRequest(_("%(field)s: holds the character U+0000, which no name or id holds.") % {"field": field})
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
        raise Refused([Problem(field, _("is nested too deeply"), "too_deep")]) from None
