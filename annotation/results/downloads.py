"""How an export, the complete items of a computed report and a dataset's inputs are
downloaded, the same on their pages and in the API."""

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.http import content_disposition_header

from annotation.models import Dataset, StoredReport
from annotation.results.agreement import counted_items
from annotation.results.exporting import Export
from annotation.results.report import inputs_filename, items_filename
from scoring.jsonl import jsonl_bytes


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
    # A routed dataset's pilot items (annotation.datasets.routing), comma-separated: marked in every export.
    response["X-Export-Pilot"] = ",".join(export.pilot)
    return response


def complete_items_download(dataset: Dataset, stored: StoredReport) -> HttpResponse:
    """The complete items the stored report scored the pooled sources on, one id a line: the
    scorer's ``--items`` file (empty when no item is complete)."""
    items = stored.report.get("complete_items") or []
    response = HttpResponse("".join(f"{item}\n" for item in items).encode("utf-8"), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, items_filename(dataset))
    return response


def inputs_download(dataset: Dataset) -> HttpResponse:
    """The input lines of the dataset's items that count, in input order: the ``--inputs`` file
    of the report's Dawid–Skene command (``inputs_filename``)."""
    data = jsonl_bytes(list(counted_items(dataset).values_list("payload", flat=True)))
    response = HttpResponse(data, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, inputs_filename(dataset))
    return response
