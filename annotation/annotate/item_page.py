"""The page that hosts a subtask's widget, whichever item it shows: an assigned item (the item
page, annotation.annotate.views) or a training item (annotation.training.views). Both draw the
widget from the item's input fields only, with the texts the page's script shows
(``script_messages``) and the script's settings (``config``: frozen, submitted, the key of the
draft kept in the browser)."""

from functools import cache

from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from annotation.models import single_keys_for, subtask_title
from annotation.subtasks import part
from annotation.subtasks.item_fields import annotator_payload
from annotation.subtasks.widgets import widget_for


@cache
def script_messages(language: str | None, *, training: bool = False) -> dict[str, str]:
    """Texts the page's script shows, translated here so the page needs no catalogue request
    (once per language and process: ``language`` is the active one); on a training item
    (``training``) Enter is named for what it does there."""
    messages = {
        "saving": _("Saving…"),
        "failedRetry": _(
            "Not saved: no connection, a server error, or you were logged out. The answer is kept "
            "in this browser; trying again in %(seconds)s s."
        ),
        "submitFailed": _(
            "Could not reach the server. The answer is kept in this browser; press Enter to try again."
        ),
        "editedSubmitted": _("Changed. Press Enter to save the change."),
        "restored": _("Restored a change from this browser that had not reached the server yet."),
        "frozen": _("This dataset is frozen: its answers can no longer be changed."),
        "keySaveNext": _("Save and open the next item"),
        "keySaveNextAnywhere": _("Save and open the next item, also while typing"),
        "keyPrevious": _("Previous item"),
        "keySkip": _("Skip (the item comes back at the end)"),
        "keyFlag": _("Flag a problem with this item"),
        "keyGuideline": _("Show or hide the guideline"),
        "keyHelp": _("Show the keys"),
        "keyHelpAnywhere": _("Show the keys, also while typing"),
        "keyAnswerField": _("Go to the answer field"),
        "keyEscape": _("Leave the text field or close a window"),
    }
    if training:
        messages |= {
            "keySaveNext": _("Answer and see the gold answer"),
            "keySaveNextAnywhere": _("Answer and see the gold answer, also while typing"),
        }
    return messages


# The guidelines of a subtask whose folder names none (annotation.subtasks).
DEFAULT_GUIDELINE = "annotation/guidelines/default.html"

def widget_page(
    request: HttpRequest,
    template: str,
    context: dict,
    *,
    subtask: str,
    payload: dict,
    answer: dict | None,
    item_url: str,
    storage_key: str,
    messages: dict[str, str],
    frozen: bool = False,
    submitted: bool = False,
    problems: list[str] | None = None,
    status: int = 200,
) -> TemplateResponse:
    """``template`` hosting the subtask's widget for the item ``payload`` (its whole input
    record: only the fields of the input schema reach the annotator) with ``answer`` (None:
    unanswered), and the page's own ``context``. ``item_url``: where the form posts and the
    widget's partials go; ``storage_key``: under which the browser keeps the answer until the
    server has it; ``messages``: the script's texts (``script_messages``)."""
    widget = widget_for(subtask)
    payload = annotator_payload(subtask, payload)
    config = {
        "frozen": frozen,
        "submitted": submitted,
        "storageKey": storage_key,
        "messages": messages,
        "singleKeys": single_keys_for(request.user),
    }
    return TemplateResponse(request, template, {
        **context,
        "item_url": item_url,
        "subtask_title": subtask_title(subtask),
        "payload": payload,
        "answer": answer,
        "widget": widget,
        "guideline_template": part(subtask, "GUIDELINE_TEMPLATE", DEFAULT_GUIDELINE),
        "config": config,
        "problems": problems or [],
        **widget.context(payload, answer),
    }, status=status)
