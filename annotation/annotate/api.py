"""REST API for annotators (and organizers' read access to datasets and items, and to agreement).

An annotator sees only datasets they have work in, only their assigned items, and only their
own annotations to them (as on "My answers": annotation.annotate.answers); saves go through the
same service as the item page. Gold is never served.
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.annotate import answers as own
from annotation.annotate import queue as queues
from annotation.annotate import routing
from annotation.annotate import services as annotating
from annotation.annotate.serializers import (
    AnnotationCreateSerializer,
    AnnotationSerializer,
    AnnotationWriteSerializer,
    DatasetSerializer,
    ItemSerializer,
)
from annotation.core.converters import BIGINT_MAX
from annotation.core.errors import NotQualified, Refused
from annotation.core.http import refusal_data, refusal_status
from annotation.core.pages import PAGE_PARAMETERS, Pages, paginated
from annotation.core.roles import ANNOTATOR, ORGANIZER, has_role, require_role
from annotation.core.serializers import RefusalSerializer
from annotation.datasets.progress import datasets_by_name, items_in_order
from annotation.models import Annotation, Dataset


@extend_schema(responses=DatasetSerializer(many=True))
@api_view(["GET"])
def dataset_list(request: Request) -> Response:
    """Annotators: the datasets they have work in, with their progress. Organizers: every dataset
    not archived, training and control pools among them."""
    require_role(request, ANNOTATOR, ORGANIZER)
    mine = queues.datasets_with_work(request.user) if has_role(request.user, ANNOTATOR) else []
    datasets = datasets_by_name() if has_role(request.user, ORGANIZER) else [e.dataset for e in mine]
    context = {"mine": {entry.dataset.pk: entry for entry in mine}}
    return Response(DatasetSerializer(datasets, many=True, context=context).data)


@extend_schema(operation_id="datasets_items_list", parameters=PAGE_PARAMETERS, responses=paginated(ItemSerializer))
@api_view(["GET"])
def dataset_items(request: Request, pk: int) -> Response:
    """Annotators: their assigned items of the dataset in their order. Organizers: every item."""
    require_role(request, ANNOTATOR, ORGANIZER)
    context = {}
    if has_role(request.user, ANNOTATOR) and queues.works_on(request.user, pk):
        if not queues.is_qualified(request.user, pk):
            refusal = NotQualified()
            return Response(refusal_data(refusal), status=refusal_status(refusal))
        context["annotator_of"] = queues.dataset_subtask(pk)
        items = queues.assigned_items(request.user, pk)
    elif has_role(request.user, ORGANIZER):
        get_object_or_404(Dataset, pk=pk)
        items = items_in_order(pk)
    else:
        raise NotFound
    paginator = Pages()
    page = paginator.paginate_queryset(items, request)
    return paginator.get_paginated_response(ItemSerializer(page, many=True, context=context).data)


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


@extend_schema(
    methods=["GET"],
    operation_id="annotations_list",
    parameters=[OpenApiParameter("dataset", int, description="Only the answers in this dataset."), *PAGE_PARAMETERS],
    responses=paginated(AnnotationSerializer),
)
@extend_schema(
    methods=["POST"],
    request=AnnotationCreateSerializer,
    # 404: the item is none of yours.
    responses={201: AnnotationSerializer, 200: AnnotationSerializer, 422: RefusalSerializer,
               403: RefusalSerializer, 404: RefusalSerializer, 409: RefusalSerializer},
)
@api_view(["GET", "POST"])
def annotation_list(request: Request) -> Response:
    """Your own answers; POST saves the answer to one of your assigned items (201 when it is
    the first save, 200 when an identical answer was already stored and nothing was written)."""
    require_role(request, ANNOTATOR)
    if request.method == "GET":
        dataset = request.query_params.get("dataset", "")
        if not dataset.isdecimal():  # isdigit() would let "²" through to int()
            annotations = own.own_answers(request.user, newest_first=False)
        elif int(dataset) <= BIGINT_MAX:
            annotations = own.own_answers(request.user, dataset_id=int(dataset), newest_first=False)
        else:  # an id past the column's range names no dataset: an empty list
            annotations = []
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
    require_role(request, ANNOTATOR)
    annotation = get_object_or_404(own.own_answers(request.user, newest_first=False), pk=pk)
    if request.method == "GET":
        return Response(AnnotationSerializer(annotation).data)
    incoming = AnnotationWriteSerializer(data=request.data)
    incoming.is_valid(raise_exception=True)
    return _save(request, annotation.item_id, incoming.validated_data, status.HTTP_200_OK)


class NextItemSerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        [routing.ITEM, routing.WAITING, routing.DONE],
        help_text="item: reserved for you (answer it with POST /api/annotations/); waiting: no item is available "
        "now (every item left has its answers or is reserved by others: ask again later); done: none remains",
    )
    reserved_until = serializers.DateTimeField(allow_null=True, help_text="the reservation lasts until then")
    item = ItemSerializer(allow_null=True)


@extend_schema(request=None, responses={200: NextItemSerializer, 403: RefusalSerializer, 422: RefusalSerializer})
@api_view(["POST"])
def next_item(request: Request, pk: int) -> Response:
    """Annotators of a routed dataset: reserve your next item (the one you hold a reservation
    of, renewed, comes first). A dataset with fixed queues is refused (422): list its items."""
    require_role(request, ANNOTATOR)
    if not queues.works_on(request.user, pk):
        raise NotFound
    refusal = None
    if not queues.is_qualified(request.user, pk):
        refusal = NotQualified()
    elif not queues.is_routed(pk):
        refusal = Refused.of("not_routed", dataset=Dataset.objects.values_list("name", flat=True).get(pk=pk))
    if refusal is not None:
        return Response(refusal_data(refusal), status=refusal_status(refusal))
    served = routing.next_item(request.user, pk)
    item = None
    if served.state == routing.ITEM:
        item = queues.assigned_items(request.user, pk).filter(position=served.position).get()
    context = {"annotator_of": queues.dataset_subtask(pk)}
    return Response({"state": served.state, "reserved_until": served.reserved_until,
                     "item": None if item is None else ItemSerializer(item, context=context).data})
