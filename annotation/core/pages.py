"""The API's lists as pages: ``count``, ``next``, ``previous``, ``results``, for every concern's API."""

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


PAGE_PARAMETERS = [
    OpenApiParameter("page", int, description="the page of the list, from 1 (a page past the last: 404)"),
    OpenApiParameter("page_size", int, description=f"entries a page (default {Pages.page_size}, at most {Pages.max_page_size})"),
]


def paginated(serializer_class: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The schema of one page of ``Pages`` listing ``serializer_class``: the count of the whole
    list, the links to the pages before and after, and this page's entries."""
    name = serializer_class.__name__.removesuffix("Serializer")
    return type(f"Paginated{name}ListSerializer", (serializers.Serializer,), {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": serializer_class(many=True),
    })
