"""REST API of the datasets concern: an organizer withdraws a broken item, reads and sets a
dataset's sample and its routing; the gold audit's queue and decisions."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.core.errors import Refused
from annotation.core.http import refusal_data, refusal_status
from annotation.core.pages import PAGE_PARAMETERS, Pages, paginated
from annotation.core.roles import ORGANIZER, has_role
from annotation.core.serializers import RefusalSerializer
from annotation.datasets.auditing import (
    BY_ANSWERS,
    BY_POSTERIOR,
    STATES,
    audit_posteriors,
    audit_queue,
    decide,
    decision_record,
    may_audit,
    queue_record,
)
from annotation.datasets.organizing import withdraw_item
from annotation.datasets.routing import routing_description, set_routing
from annotation.datasets.sampling import preview_sample, sample_ids, set_sample
from annotation.models import Dataset, GoldAuditDecision, Item


class WithdrawSerializer(serializers.Serializer):
    reason = serializers.CharField()


@extend_schema(request=WithdrawSerializer, responses={204: None})
@api_view(["POST"])
def withdraw(request: Request, pk: int) -> Response:
    """Organizers: withdraw a broken item from every queue, agreement, majority, adjudication,
    export and report."""
    if not has_role(request.user, ORGANIZER):
        raise PermissionDenied
    item = get_object_or_404(Item, pk=pk)
    incoming = WithdrawSerializer(data=request.data)
    incoming.is_valid(raise_exception=True)
    withdraw_item(item, request.user, incoming.validated_data["reason"])
    return Response(status=status.HTTP_204_NO_CONTENT)


class StratumSerializer(serializers.Serializer):
    value = serializers.CharField(help_text="the field's value as canonical JSON")
    size = serializers.IntegerField(help_text="the stratum's items")
    sample_size = serializers.IntegerField(help_text="its items in the sample")


class SampleSerializer(serializers.Serializer):
    size = serializers.IntegerField(min_value=0, allow_null=True, help_text="null: every item")
    seed = serializers.IntegerField(min_value=0, allow_null=True, required=False, default=None)
    field = serializers.CharField(allow_blank=True, required=False, default="", max_length=200)
    dry_run = serializers.BooleanField(required=False, default=False, write_only=True,
                                       help_text="return the draw and its allocation, change nothing")
    ids = serializers.ListField(child=serializers.CharField(), read_only=True, help_text="in Python string order")
    strata = StratumSerializer(many=True, read_only=True, help_text="the allocation of a draw just made")

    def validate(self, data):
        if data["size"] is not None and data["seed"] is None:
            raise serializers.ValidationError({"seed": "a sample needs a seed"})
        if data["size"] is None and data["dry_run"]:
            raise serializers.ValidationError({"size": "a dry run draws a sample: give its size"})
        return data


@extend_schema(methods=["GET"], responses=SampleSerializer)
@extend_schema(methods=["PUT"], request=SampleSerializer, responses={200: SampleSerializer, 422: RefusalSerializer})
@api_view(["GET", "PUT"])
def dataset_sample(request: Request, pk: int) -> Response:
    """Organizers: the dataset's seeded sample (the draw of `python -m scoring sample`), the only
    items assigned. PUT sets it (size null: every item; set before the first assignment), or with
    dry_run only shows the draw and its allocation per stratum."""
    if not has_role(request.user, ORGANIZER):
        raise PermissionDenied
    dataset = get_object_or_404(Dataset, pk=pk)
    strata = []
    if request.method == "PUT":
        incoming = SampleSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        size, seed, field = (incoming.validated_data[name] for name in ("size", "seed", "field"))
        try:
            if incoming.validated_data["dry_run"]:
                drawn = preview_sample(dataset, size, seed, field)
                return Response({"size": size, "seed": seed, "field": field, "ids": drawn.ids,
                                 "strata": StratumSerializer(drawn.strata, many=True).data})
            drawn = set_sample(dataset, size, seed, field)
        except Refused as refusal:
            return Response(refusal_data(refusal), status=refusal_status(refusal))
        strata = [] if drawn is None else StratumSerializer(drawn.strata, many=True).data
        dataset.refresh_from_db()
    return Response({"size": dataset.sample_size, "seed": dataset.sample_seed, "field": dataset.sample_field,
                     "ids": sample_ids(dataset), "strata": strata})


class RoutingStateSerializer(serializers.Serializer):
    answers_per_item = serializers.IntegerField()
    items_by_answers = serializers.DictField(child=serializers.IntegerField(),
                                             help_text="submitted answers (0..k, k: k or more) -> items")
    reserved_items = serializers.IntegerField(help_text="items with an open reservation")
    late_answers = serializers.IntegerField(help_text="answers submitted after their reservation expired")
    late_items = serializers.IntegerField(help_text="items with such an answer")
    pilot_items = serializers.IntegerField()
    pilot_open = serializers.BooleanField()
    annotators = serializers.ListField(child=serializers.DictField(), help_text="username, served, submitted, quota")


class RoutingSerializer(serializers.Serializer):
    routing = serializers.BooleanField(required=False, help_text="true: routing; false: fixed queues")
    answers_per_item = serializers.IntegerField(min_value=1, required=False, allow_null=True, help_text="k")
    reservation_minutes = serializers.IntegerField(min_value=1, required=False)
    pilot_size = serializers.IntegerField(min_value=0, required=False)
    pilot_open = serializers.BooleanField(required=False, help_text="serve the rest after the pilot")
    quota = serializers.IntegerField(min_value=1, required=False, allow_null=True, help_text="null: no limit")
    state = RoutingStateSerializer(read_only=True, allow_null=True, help_text="null for fixed queues")


@extend_schema(methods=["GET"], responses=RoutingSerializer)
@extend_schema(methods=["PUT"], request=RoutingSerializer, responses={200: RoutingSerializer, 422: RefusalSerializer})
@api_view(["GET", "PUT"])
def dataset_routing(request: Request, pk: int) -> Response:
    """Organizers: fixed queues or routing, its settings and the sample's state. PUT changes the
    fields it names (fixed queues or routing, k and the pilot's size before the first answer)."""
    if not has_role(request.user, ORGANIZER):
        raise PermissionDenied
    dataset = get_object_or_404(Dataset, pk=pk)
    if request.method == "PUT":
        incoming = RoutingSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        changes = dict(incoming.validated_data)
        changes.setdefault("quota", False)
        try:
            dataset = set_routing(dataset, **changes)
        except Refused as refusal:
            return Response(refusal_data(refusal), status=refusal_status(refusal))
    return Response(routing_description(dataset))
class AuditDecisionRecordSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=GoldAuditDecision.Kind.choices)
    note = serializers.CharField()
    by = serializers.CharField()
    at = serializers.DateTimeField()
    gold_version = serializers.IntegerField(allow_null=True, help_text="the version a correction made (2, 3...)")


class AuditedItemSerializer(serializers.Serializer):
    id = serializers.CharField()
    state = serializers.ChoiceField(choices=STATES)
    submitted = serializers.IntegerField(help_text="submitted answers")
    agreeing = serializers.IntegerField(allow_null=True, help_text="of them, equal to the answer against the gold")
    share = serializers.FloatField(allow_null=True)
    entered_by = serializers.ChoiceField(choices=[BY_ANSWERS, BY_POSTERIOR], allow_null=True)
    posterior = serializers.FloatField(allow_null=True)
    answer = serializers.JSONField(allow_null=True, help_text="the answer that stands against the gold (normalised)")
    gold = serializers.JSONField(help_text="the original gold line")
    gold_in_force = serializers.JSONField(help_text="the gold line of the latest correction, else the original")
    decision = AuditDecisionRecordSerializer(allow_null=True, help_text="the latest decision")


def _audited_dataset(request: Request, dataset: Dataset) -> None:
    if not may_audit(request.user, dataset):
        raise PermissionDenied


@extend_schema(parameters=[*PAGE_PARAMETERS, OpenApiParameter("state", str, enum=list(STATES))],
               responses=paginated(AuditedItemSerializer))
@api_view(["GET"])
def gold_audit(request: Request, pk: int) -> Response:
    """Organizers (and adjudicators the organizer lets audit the revealed gold): the dataset's
    or pool's gold audit queue, most unanimous first; ?state= keeps one state."""
    dataset = get_object_or_404(Dataset.objects.select_related("pool_of"), pk=pk)
    _audited_dataset(request, dataset)
    state = request.query_params.get("state", "")
    queue = audit_queue(dataset, audit_posteriors(dataset), state=state if state in STATES else "")
    paginator = Pages()
    page = paginator.paginate_queryset(queue, request)
    return paginator.get_paginated_response([queue_record(audited) for audited in page])


class AuditDecisionSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=GoldAuditDecision.Kind.choices)
    note = serializers.CharField(help_text="why (for a correction: its reason)")
    gold = serializers.JSONField(required=False, default=None, help_text="kind corrected: the item's new gold line")


@extend_schema(request=AuditDecisionSerializer, responses={201: AuditDecisionRecordSerializer, 422: RefusalSerializer})
@api_view(["POST"])
def gold_audit_decision(request: Request, pk: int) -> Response:
    """Record a decision of the gold audit on the item: the gold stands, is corrected (a new
    version), or the item is withdrawn from the audited gold."""
    item = get_object_or_404(Item.objects.select_related("dataset__pool_of"), pk=pk)
    _audited_dataset(request, item.dataset)
    incoming = AuditDecisionSerializer(data=request.data)
    incoming.is_valid(raise_exception=True)
    try:
        decision = decide(item=item, by=request.user, **incoming.validated_data)
    except Refused as refusal:
        return Response(refusal_data(refusal), status=refusal_status(refusal))
    return Response(decision_record(decision), status=status.HTTP_201_CREATED)
