"""How a refusal of a service answers over HTTP, the same on pages and in the API; how an
export is downloaded, the same on its page and in the API.

A refused answer or file is 422 (Unprocessable Content); a save based on an old version and
answers that cannot be exported conflict with what is stored (409), as do a decision based on
an old version and one on an item another adjudicator holds; a frozen dataset forbids the
change (403), as do answering a withdrawn item, adjudicating a dataset one annotates, and
working on a dataset's items before passing its training round, and an organizer's action on
an organizer's or a superuser's account.
"""

from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header

from annotation.errors import (
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
from annotation.services.exporting import Export

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


def export_download(export: Export, left_out: bool = False) -> StreamingHttpResponse:
    """The export's file (or its left-out list) as a streamed attachment. Headers say what it
    leaves out: ``X-Export-Left-Out`` (how many items), ``X-Export-Filled`` (majority filled)
    and ``X-Export-Complete`` (``false``: items left out for another reason than withdrawal)."""
    if left_out:
        response = StreamingHttpResponse([export.left_out_bytes()], content_type="text/tab-separated-values; charset=utf-8")
        filename = export.left_out_filename
    else:
        response = StreamingHttpResponse(export.chunks(), content_type=export.content_type)
        filename = export.filename
    response["Content-Disposition"] = content_disposition_header(True, filename)
    response["X-Export-Left-Out"] = str(len(export.left_out))
    response["X-Export-Filled"] = str(len(export.filled))
    response["X-Export-Complete"] = "true" if export.complete else "false"
    return response
