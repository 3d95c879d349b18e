"""How a refusal of a service answers over HTTP, the same on pages and in the API.

A refused answer or file is 422 (Unprocessable Content); a save based on an old version and
answers that cannot be exported conflict with what is stored (409); a frozen dataset forbids
the change (403).
"""

from annotation.errors import DatasetFrozen, NeedsConfirmation, NotExportable, Refused, StaleVersion

STATUS = {StaleVersion: 409, NotExportable: 409, DatasetFrozen: 403}
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
    if isinstance(refused, StaleVersion):
        data["current_version"] = refused.current.version
    if isinstance(refused, NeedsConfirmation):
        data["needs_confirmation"] = True
    return data
