"""REST API of the datasets concern: an organizer withdraws a broken item."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.core.roles import ORGANIZER, has_role
from annotation.datasets.organizing import withdraw_item
from annotation.models import Item


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
