"""REST API for annotators (and organizers' read access to datasets and items, and to agreement).

An annotator sees only datasets they have work in, only their assigned items, and only their
own annotations; saves go through the same service as the item page. Gold is never served.
"""

from django.db.models import IntegerField, OuterRef, Subquery, Value
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.api.serializers import (
    AgreementSerializer,
    AnnotationCreateSerializer,
    AnnotationSerializer,
    AnnotationWriteSerializer,
    DatasetSerializer,
    ItemSerializer,
    RefusalSerializer,
)
from annotation.converters import BIGINT_MAX
from annotation.errors import NotQualified, Refused
from annotation.http import export_download, refusal_data, refusal_status
from annotation.models import Annotation, Assignment, Campaign, Dataset, Item
from annotation.roles import ANNOTATOR, ORGANIZER, has_role
from annotation.selectors import queue as queues
from annotation.selectors import report as report_selectors
from annotation.selectors.agreement import agreement_report
from annotation.selectors.exports import export_summaries
from annotation.selectors.training import below_control_threshold
from annotation.services import annotating
from annotation.services.exporting import FILLS, FORMATS, build_export


class Pages(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


def _require(request: Request, *roles: str) -> None:
    if not any(has_role(request.user, role) for role in roles):
        raise PermissionDenied


@extend_schema(responses=DatasetSerializer(many=True))
@api_view(["GET"])
def dataset_list(request: Request) -> Response:
    """Annotators: the datasets they have work in, with their progress. Organizers: all datasets."""
    _require(request, ANNOTATOR, ORGANIZER)
    mine = queues.datasets_with_work(request.user) if has_role(request.user, ANNOTATOR) else []
    datasets = Dataset.objects.order_by("name") if has_role(request.user, ORGANIZER) else [e.dataset for e in mine]
    context = {"mine": {entry.dataset.pk: entry for entry in mine}}
    return Response(DatasetSerializer(datasets, many=True, context=context).data)


@extend_schema(responses=ItemSerializer(many=True))
@api_view(["GET"])
def dataset_items(request: Request, pk: int) -> Response:
    """Annotators: their assigned items of the dataset in their order. Organizers: every item."""
    _require(request, ANNOTATOR, ORGANIZER)
    context = {}
    if has_role(request.user, ANNOTATOR) and queues.queue(request.user, pk).exists():
        if not queues.is_qualified(request.user, pk):
            refusal = NotQualified()
            return Response(refusal_data(refusal), status=refusal_status(refusal))
        context["annotator_of"] = Dataset.objects.values_list("subtask", flat=True).get(pk=pk)
        items = (
            Item.objects.filter(assignments__annotator=request.user, assignments__dataset_id=pk)
            .annotate(position=Subquery(
                Assignment.objects.filter(item=OuterRef("pk"), annotator=request.user).values("position")[:1]
            ))
            .order_by("position")
        )
    elif has_role(request.user, ORGANIZER):
        get_object_or_404(Dataset, pk=pk)
        items = Item.objects.filter(dataset_id=pk).annotate(position=Value(None, IntegerField())).order_by("ordinal")
    else:
        raise NotFound
    paginator = Pages()
    page = paginator.paginate_queryset(items.only("id", "external_id", "payload", "withdrawn_at"), request)
    return paginator.get_paginated_response(ItemSerializer(page, many=True, context=context).data)


@extend_schema(responses=AgreementSerializer)
@api_view(["GET"])
def dataset_agreement(request: Request, pk: int) -> Response:
    """Organizers: how far the annotators of the dataset agree (the scorer's figures, per annotator)."""
    _require(request, ORGANIZER)
    report = agreement_report(get_object_or_404(Dataset, pk=pk))
    return Response(AgreementSerializer(report).data)


@extend_schema(
    parameters=[
        OpenApiParameter("source", str, description="annotator:NAME, majority, adjudicated or all; without it, the sources and their counts"),
        OpenApiParameter("fill", str, enum=list(FILLS), description="majority only: fill the items without a majority from the adjudications"),
        OpenApiParameter("file_format", str, enum=list(FORMATS), description="jsonl (default); csv only for source all"),
        OpenApiParameter("left_out", bool, description="the items the export leaves out, then the filled ones (id, reason; tab-separated) instead"),
        OpenApiParameter("exclude_below_control", bool, description="majority and adjudicated only: without the answers "
                         "of the annotators below the control threshold (as the report's option)"),
    ],
    responses={(200, "application/jsonl"): OpenApiTypes.BINARY, 409: RefusalSerializer, 422: RefusalSerializer},
)
@api_view(["GET"])
def dataset_export(request: Request, pk: int):
    """Organizers: one source of the dataset's answers as a file, checked by the scorer (streamed;
    headers X-Export-Left-Out, X-Export-Filled, X-Export-Complete); without ``source``, the
    sources with their counts and whether each is complete (JSON), as the export page lists them."""
    _require(request, ORGANIZER)
    dataset = get_object_or_404(Dataset, pk=pk)
    if "source" not in request.query_params:
        return Response({"sources": [
            {"source": summary.source, "n_records": summary.n_records, "n_left_out": summary.n_left_out,
             "fill": summary.fill or None, "complete": summary.complete,
             "formats": list(summary.formats), "problems": [str(problem) for problem in summary.problems]}
            for summary in export_summaries(dataset)
        ]})
    try:
        excluded = below_control_threshold(dataset) if _flag(request, "exclude_below_control") else ()
        export = build_export(dataset, request.query_params["source"], request.query_params.get("file_format", "jsonl"),
                              request.query_params.get("fill") or None, excluded=excluded)
    except Refused as refusal:
        return Response(refusal_data(refusal), status=refusal_status(refusal))
    return export_download(export, left_out=_flag(request, "left_out"))


def _flag(request: Request, name: str) -> bool:
    return request.query_params.get(name) in ("1", "true")


def _save(request: Request, item_id: int, data: dict, created_status: int) -> Response:
    page = queues.item_page_of_item(request.user, item_id)
    if page is None:
        raise NotFound
    try:
        outcome = annotating.save_answer(
            page=page,
            answer=data["answer"],
            submit=data["status"] == Annotation.Status.SUBMITTED,
            based_on_version=data["version"],
            active_ms=data["active_ms"],
            confirmed=data["confirmed"],
        )
    except Refused as refusal:
        return Response(refusal_data(refusal), status=refusal_status(refusal))
    created = outcome.changed and outcome.annotation.version == 1
    outcome.annotation.assigned_dataset_id = page.dataset_id
    return Response(
        # Built from what the save read: the item is not loaded again.
        AnnotationSerializer(outcome.annotation, context={"page": page}).data,
        status=created_status if created else status.HTTP_200_OK,
    )


def _own_annotations(request: Request):
    """The user's answers, each with the dataset its item was assigned in (``assigned_dataset_id``)."""
    assigned_in = Assignment.objects.filter(item=OuterRef("item"), annotator=request.user).values("dataset_id")[:1]
    return (
        Annotation.objects.filter(annotator=request.user)
        .select_related("item")
        .annotate(assigned_dataset_id=Subquery(assigned_in))
        .order_by("pk")
    )


@extend_schema(
    methods=["GET"],
    parameters=[OpenApiParameter("dataset", int, description="Only the answers in this dataset.")],
    responses=AnnotationSerializer(many=True),
)
@extend_schema(
    methods=["POST"],
    request=AnnotationCreateSerializer,
    responses={201: AnnotationSerializer, 200: AnnotationSerializer, 422: RefusalSerializer,
               403: RefusalSerializer, 409: RefusalSerializer},
)
@api_view(["GET", "POST"])
def annotation_list(request: Request) -> Response:
    """Your own answers; POST saves the answer to one of your assigned items (201 when it is
    the first save, 200 when an identical answer was already stored and nothing was written)."""
    _require(request, ANNOTATOR)
    if request.method == "GET":
        annotations = _own_annotations(request)
        dataset = request.query_params.get("dataset", "")
        if dataset.isdecimal():  # isdigit() would let "²" through to int()
            # An id past the column's range names no dataset: an empty list.
            annotations = annotations.filter(assigned_dataset_id=int(dataset)) if int(dataset) <= BIGINT_MAX else []
        paginator = Pages()
        page = paginator.paginate_queryset(annotations, request)
        return paginator.get_paginated_response(AnnotationSerializer(page, many=True).data)
    incoming = AnnotationCreateSerializer(data=request.data)
    incoming.is_valid(raise_exception=True)
    return _save(request, incoming.validated_data["item"], incoming.validated_data, status.HTTP_201_CREATED)


@extend_schema(
    methods=["PUT"],
    request=AnnotationWriteSerializer,
    responses={200: AnnotationSerializer, 422: RefusalSerializer, 403: RefusalSerializer, 409: RefusalSerializer},
)
@extend_schema(methods=["GET"], responses=AnnotationSerializer)
@api_view(["GET", "PUT"])
def annotation_detail(request: Request, pk: int) -> Response:
    """One of your answers; PUT saves a new version of it (send the version you saw)."""
    _require(request, ANNOTATOR)
    annotation = get_object_or_404(_own_annotations(request), pk=pk)
    if request.method == "GET":
        return Response(AnnotationSerializer(annotation).data)
    incoming = AnnotationWriteSerializer(data=request.data)
    incoming.is_valid(raise_exception=True)
    return _save(request, annotation.item_id, incoming.validated_data, status.HTTP_200_OK)


# Both reports: plain JSON objects (their keys: docs/architecture.md), one optional seed.
report_schema = extend_schema(
    parameters=[OpenApiParameter("seed", int, description="seed of the bootstrap resamples (default 0)"),
                OpenApiParameter("exclude_below_control", bool, description="leave the annotators below the control "
                                 "threshold out of the majority and adjudicated sources")],
    responses=OpenApiTypes.OBJECT,
)


@report_schema
@api_view(["GET"])
def dataset_report(request: Request, pk: int) -> Response:
    """Organizers: the human-baseline report of a dataset (every figure, as `baseline_report --format json`)."""
    _require(request, ORGANIZER)
    dataset = get_object_or_404(Dataset, pk=pk)
    return Response(report_selectors.dataset_report(dataset, seed=_seed(request),
                                                    exclude_below_control=_flag(request, "exclude_below_control")))


@report_schema
@api_view(["GET"])
def campaign_report(request: Request, pk: int) -> Response:
    """Organizers: the campaign table with every figure of its datasets' reports."""
    _require(request, ORGANIZER)
    campaign = get_object_or_404(Campaign, pk=pk)
    return Response(report_selectors.campaign_report(campaign, seed=_seed(request),
                                                     exclude_below_control=_flag(request, "exclude_below_control")))


def _seed(request: Request) -> int:
    text = request.query_params.get("seed", "")
    if not text:
        return report_selectors.DEFAULT_SEED
    if not text.isdecimal() or int(text) >= 2**63:
        raise ValidationError({"seed": "a whole number from 0 to 2**63 - 1"})
    return int(text)
