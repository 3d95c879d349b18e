"""REST API of adjudication: the adjudicator's queue, an item's answers and decisions (the same
service and role rules as the adjudication pages), and the organizer's adjudication settings
and withdrawal. Gold appears only once the organizer has revealed it for the dataset."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.adjudicate import selectors as cases
from annotation.adjudicate import services as adjudicating
from annotation.adjudicate.services import set_adjudication_settings
from annotation.core.errors import ClaimedByOther, NotAdjudicatorHere, Refused
from annotation.core.http import refusal_data, refusal_status
from annotation.core.roles import ADJUDICATOR, ORGANIZER, has_role
from annotation.core.serializers import RefusalSerializer
from annotation.models import Adjudication, Dataset


class CountsSerializer(serializers.Serializer):
    open = serializers.IntegerField()
    stale = serializers.IntegerField()
    settled = serializers.IntegerField()


class AdjudicationDatasetSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="dataset.pk")
    name = serializers.CharField(source="dataset.name")
    subtask = serializers.CharField(source="dataset.subtask")
    counts = CountsSerializer()


class QueueEntrySerializer(serializers.Serializer):
    item = serializers.IntegerField(source="item_id")
    external_id = serializers.CharField()
    status = serializers.CharField(help_text='"open" (never settled) or "stale" (an answer changed since the decision).')
    disagreement = serializers.BooleanField()
    flagged = serializers.BooleanField()
    claimed_by_other = serializers.BooleanField(help_text="Another adjudicator is working on it.")


class ShownAnswerSerializer(serializers.Serializer):
    label = serializers.CharField(help_text='"Annotator k", or the name where the organizer shows names.')
    annotation = serializers.IntegerField(source="annotation_id", help_text="Send it to take this answer.")
    version = serializers.IntegerField()
    answer = serializers.JSONField()
    majority = serializers.BooleanField()


class DecisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Adjudication
        fields = ["answer", "source", "source_annotation", "note", "version", "decided_at"]
        read_only_fields = fields


class ChangeSerializer(serializers.Serializer):
    label = serializers.CharField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField()


class ShownFlagSerializer(serializers.Serializer):
    label = serializers.CharField()
    comment = serializers.CharField()
    resolution_note = serializers.CharField()


class CaseSerializer(serializers.Serializer):
    item = serializers.IntegerField(source="item.pk")
    external_id = serializers.CharField(source="item.external_id")
    payload = serializers.JSONField(help_text="The input record as annotators see it: the fields its subtask's input schema names.")
    status = serializers.CharField(help_text='"open", "settled" or "stale".')
    disagreement = serializers.BooleanField()
    answers = ShownAnswerSerializer(many=True)
    majority = serializers.JSONField(allow_null=True)
    majority_reason = serializers.CharField(allow_null=True)
    flags = ShownFlagSerializer(many=True, help_text="The annotators' flags and comments.")
    decision = DecisionSerializer(source="adjudication", allow_null=True)
    changes = ChangeSerializer(many=True, help_text="Answers submitted since the decision (when stale).")
    gold = serializers.JSONField(allow_null=True, help_text="Only once the organizer revealed the gold.")


class DecisionWriteSerializer(serializers.Serializer):
    source = serializers.ChoiceField(choices=Adjudication.Source.choices)
    annotation = serializers.IntegerField(required=False, help_text="For source=annotation: the answer taken.")
    answer = serializers.JSONField(required=False, help_text="For source=edited: the answer fields.")
    note = serializers.CharField(required=False, allow_blank=True, default="")
    version = serializers.IntegerField(min_value=0, help_text="The decision version you saw (0: none yet).")


class SettingsSerializer(serializers.ModelSerializer):
    """The settings, the first three required in a PUT (400 naming those missing; without
    ``adjudicators_audit_gold`` it stays as it is); PATCH sends any of them."""

    class Meta:
        model = Dataset
        fields = ["auto_majority", "adjudicators_see_names", "gold_revealed", "adjudicators_audit_gold"]
        extra_kwargs = {field: {"required": field != "adjudicators_audit_gold"} for field in fields}




def _dataset_for(request: Request, dataset_id: int) -> Dataset:
    if not has_role(request.user, ADJUDICATOR):
        raise PermissionDenied
    dataset = get_object_or_404(Dataset, pk=dataset_id)
    if not adjudicating.may_adjudicate(request.user, dataset.pk):
        raise PermissionDenied(NotAdjudicatorHere().messages[0])
    return dataset


def _case(request: Request, item_id: int) -> cases.AdjudicationCase:
    item = get_object_or_404(cases.items_with_dataset(), pk=item_id)
    case = cases.adjudication_case(_dataset_for(request, item.dataset_id), item.pk)
    if case is None or case.status is None:
        raise NotFound
    return case


@extend_schema(responses=AdjudicationDatasetSerializer(many=True))
@api_view(["GET"])
def adjudication_datasets(request: Request) -> Response:
    """Adjudicators: the datasets with disagreements you may settle, with open/stale/settled counts."""
    if not has_role(request.user, ADJUDICATOR):
        raise PermissionDenied
    return Response(AdjudicationDatasetSerializer(cases.adjudicator_datasets(request.user), many=True).data)


@extend_schema(responses=QueueEntrySerializer(many=True))
@api_view(["GET"])
def adjudication_queue(request: Request, pk: int) -> Response:
    """The dataset's open and stale items in queue order: disagreements, then flagged items."""
    _dataset_for(request, pk)
    return Response(QueueEntrySerializer(cases.queue_entries(request.user, pk), many=True).data)


@extend_schema(responses=CaseSerializer)
@api_view(["GET"])
def adjudication_item(request: Request, pk: int) -> Response:
    """One item's submitted answers (anonymised unless the organizer shows names), majority,
    flags, decision and what changed since it; gold only once revealed."""
    return Response(CaseSerializer(_case(request, pk)).data)


@extend_schema(request=None, responses={204: None, 409: RefusalSerializer})
@api_view(["POST"])
def adjudication_claim(request: Request, pk: int) -> Response:
    """Claim the item for 15 minutes (renew by claiming again); 409 while another adjudicator holds it."""
    case = _case(request, pk)
    if not adjudicating.claim_item(item=case.item, adjudicator=request.user):
        refusal = ClaimedByOther()
        return Response(refusal_data(refusal), status=refusal_status(refusal))
    return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(
    request=DecisionWriteSerializer,
    responses={200: DecisionSerializer, 201: DecisionSerializer, 409: RefusalSerializer, 422: RefusalSerializer},
)
@api_view(["POST"])
def adjudication_decision(request: Request, pk: int) -> Response:
    """Settle the item: take an annotator's answer, the majority, or your edited answer. The
    final answer passes the annotators' checks (422); a decision on an old version, or on an
    item another adjudicator holds, is refused (409)."""
    case = _case(request, pk)
    incoming = DecisionWriteSerializer(data=request.data)
    incoming.is_valid(raise_exception=True)
    data = incoming.validated_data
    try:
        adjudication = adjudicating.save_decision(
            item=case.item,
            adjudicator=request.user,
            source=data["source"],
            annotation_id=data.get("annotation"),
            answer=data.get("answer"),
            note=data["note"],
            based_on_version=data["version"],
        )
    except Refused as refusal:
        return Response(refusal_data(refusal), status=refusal_status(refusal))
    created = adjudication.version == 1
    return Response(
        DecisionSerializer(adjudication).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
    )


@extend_schema(methods=["GET"], responses=SettingsSerializer)
@extend_schema(methods=["PUT", "PATCH"], request=SettingsSerializer, responses=SettingsSerializer)
@api_view(["GET", "PUT", "PATCH"])
def adjudication_settings(request: Request, pk: int) -> Response:
    """Organizers: whether majorities settle disagreements automatically, whether adjudicators
    see annotators' names, whether the gold is revealed to adjudicators, whether they decide in
    the gold audit (once revealed). PUT sends the first three (a missing one is a 400 naming
    it), PATCH those to change."""
    if not has_role(request.user, ORGANIZER):
        raise PermissionDenied
    dataset = get_object_or_404(Dataset, pk=pk)
    if request.method in ("PUT", "PATCH"):
        incoming = SettingsSerializer(data=request.data, partial=request.method == "PATCH")
        incoming.is_valid(raise_exception=True)
        dataset = set_adjudication_settings(dataset, **{**SettingsSerializer(dataset).data, **incoming.validated_data})
    return Response(SettingsSerializer(dataset).data)
