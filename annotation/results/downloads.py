"""How an export is downloaded, the same on its page and in the API."""

from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header

from annotation.results.exporting import Export


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
