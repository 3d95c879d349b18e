"""REST API of results for organizers: agreement, exports and the human-baseline report."""

import json

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import api_view
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.annotate.api import require_role
from annotation.core.errors import Refused
from annotation.core.http import refusal_data, refusal_status
from annotation.core.roles import ORGANIZER
from annotation.core.serializers import RefusalSerializer
from annotation.models import Campaign, Dataset, StoredReportPart
from annotation.results import report as report_selectors
from annotation.results import selectors
from annotation.results.agreement import agreement_report
from annotation.results.computing import serve_report
from annotation.results.downloads import complete_items_download, export_download
from annotation.results.exporting import FILLS, FORMATS, build_export
from annotation.results.exports import export_summaries
from annotation.results.serializers import AgreementSerializer, ComputingSerializer, ExportSourcesSerializer
from annotation.training.selectors import below_control_threshold


@extend_schema(responses=AgreementSerializer)
@api_view(["GET"])
def dataset_agreement(request: Request, pk: int) -> Response:
    """Organizers: how far the annotators of the dataset agree (the scorer's figures, per annotator)."""
    require_role(request, ORGANIZER)
    report = agreement_report(get_object_or_404(Dataset, pk=pk))
    return Response(AgreementSerializer(report).data)


@never_cache
@extend_schema(
    parameters=[
        OpenApiParameter("source", str, description="annotator:NAME, majority, dawid-skene, adjudicated or all; without it, the sources and their counts"),
        OpenApiParameter("fill", str, enum=list(FILLS), description="majority only: fill the items without a majority from the adjudications"),
        OpenApiParameter("file_format", str, enum=list(FORMATS), description="jsonl (default); csv only for source all"),
        OpenApiParameter("left_out", bool, description="the items the export leaves out, then the filled ones (id, reason; tab-separated) instead"),
        OpenApiParameter("exclude_below_control", bool, description="majority, dawid-skene and adjudicated only: without the answers "
                         "of the annotators below the control threshold (as the report's option)"),
        # The file's headers (annotation.results.downloads), not on the JSON list of sources.
        OpenApiParameter("X-Export-Left-Out", int, OpenApiParameter.HEADER, response=[200],
                         description="the file: how many items it leaves out"),
        OpenApiParameter("X-Export-Filled", int, OpenApiParameter.HEADER, response=[200],
                         description="the file: how many items a majority export filled from the adjudications"),
        OpenApiParameter("X-Export-Complete", str, OpenApiParameter.HEADER, response=[200], enum=["true", "false"],
                         description="the file: false when it leaves out items for another reason than withdrawal"),
        OpenApiParameter("X-Export-Pilot", str, OpenApiParameter.HEADER, response=[200],
                         description="the file: the ids of a routed dataset's pilot items, comma-separated (empty: none)"),
    ],
    responses={
        (200, "application/jsonl"): OpenApiTypes.BINARY,
        (200, "text/csv"): OpenApiTypes.BINARY,
        (200, "text/tab-separated-values"): OpenApiTypes.BINARY,
        (200, "application/json"): ExportSourcesSerializer,
        409: RefusalSerializer,
        422: RefusalSerializer,
    },
)
@api_view(["GET"])
def dataset_export(request: Request, pk: int):
    """Organizers: one source of the dataset's answers as a file, checked by the scorer (streamed;
    headers X-Export-Left-Out, X-Export-Filled, X-Export-Complete); without ``source``, the
    sources with their counts and whether each is complete (JSON), as the export page lists them."""
    require_role(request, ORGANIZER)
    dataset = get_object_or_404(Dataset, pk=pk)
    if "source" not in request.query_params:
        return Response(ExportSourcesSerializer({"sources": export_summaries(dataset)}).data)
    try:
        excluded = below_control_threshold(dataset) if _flag(request, "exclude_below_control") else ()
        export = build_export(dataset, request.query_params["source"], request.query_params.get("file_format", "jsonl"),
                              request.query_params.get("fill") or None, excluded=excluded)
    except Refused as refusal:
        return Response(refusal_data(refusal), status=refusal_status(refusal))
    return export_download(export, left_out=_flag(request, "left_out"))


def _flag(request: Request, name: str) -> bool:
    return request.query_params.get(name) in ("1", "true")


def report_schema(*, items: bool):
    """Both reports: plain JSON objects (their keys: docs/architecture.md), one optional seed; 202
    until the first computation is done. A dataset's also gives its complete items as text."""
    parameters = [
        OpenApiParameter("seed", int, description="seed of the bootstrap resamples (default 0)"),
        OpenApiParameter("exclude_below_control", bool, description="leave the annotators below the control "
                         "threshold out of the majority and adjudicated sources"),
        OpenApiParameter("Retry-After", int, OpenApiParameter.HEADER, response=[202],
                         description="seconds to wait before asking again"),
    ]
    responses = {(200, "application/json"): OpenApiTypes.OBJECT, 202: ComputingSerializer}
    if items:
        parameters.append(OpenApiParameter("items", bool, description="the complete items the pooled sources "
                                           "are scored on, one id a line (text), instead of the report"))
        responses[(200, "text/plain")] = OpenApiTypes.STR
    return extend_schema(parameters=parameters, responses=responses)


def _served(served) -> Response | HttpResponse:
    """The stored report's JSON as it was written, with its computation's facts first, or 202
    while the first one is computed."""
    if served.stored is None:
        return Response({"detail": _("The report is being computed; try again in a moment."),
                         "computing": True}, status=202, headers={"Retry-After": "5"})
    facts = json.dumps({"computed_at": served.stored.computed_at.isoformat(), "current": served.freshness.current,
                        "changes": served.freshness.changes, "computing": served.freshness.computing},
                       ensure_ascii=False)
    report = selectors.report_part(served.stored, StoredReportPart.Kind.API, "")
    return HttpResponse(f'{{"computation": {facts}, {report[1:]}'.encode(), content_type="application/json")


@never_cache
@report_schema(items=True)
@api_view(["GET"])
def dataset_report(request: Request, pk: int) -> Response:
    """Organizers: the human-baseline report of a dataset (every figure, as `baseline_report --format json`),
    its newest finished computation; ``computation`` says when it was computed and what changed since.
    With ``items=1``: the complete items its pooled sources are scored on, one id a line (`scoring --items`)."""
    require_role(request, ORGANIZER)
    dataset = get_object_or_404(Dataset, pk=pk)
    options = {"seed": _seed(request), "exclude_below_control": _flag(request, "exclude_below_control")}
    if _flag(request, "items"):
        served = serve_report(dataset=dataset, **options, fields=("report",))
        return _served(served) if served.stored is None else complete_items_download(dataset, served.stored)
    return _served(serve_report(dataset=dataset, **options))


@never_cache
@report_schema(items=False)
@api_view(["GET"])
def campaign_report(request: Request, pk: int) -> Response:
    """Organizers: the campaign table with every figure of its datasets' reports (the newest finished computation)."""
    require_role(request, ORGANIZER)
    campaign = get_object_or_404(Campaign, pk=pk)
    return _served(serve_report(campaign=campaign, seed=_seed(request),
                                exclude_below_control=_flag(request, "exclude_below_control")))


def _seed(request: Request) -> int:
    text = request.query_params.get("seed", "")
    if not text:
        return report_selectors.DEFAULT_SEED
    if not text.isdecimal() or int(text) >= 2**63:
        raise ValidationError({"seed": "a whole number from 0 to 2**63 - 1"})
    return int(text)
