"""django-filter wired to the error envelope: a bad filter is a 400 naming the query parameter."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from django.conf import settings
from django.db.models import Model, QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.request import Request

from payments.rest.envelope import QueryValidationError
from payments.rest.parsers import json_depth_exceeds

if TYPE_CHECKING:
    from rest_framework.views import APIView

# Read by the paginator, never by a filterset.
PAGING_PARAMS = frozenset({"cursor", "limit"})

ModelT = TypeVar("ModelT", bound=Model)


# django-filter ships no types, so its classes are Any to mypy: subclassing one is allowed here on purpose.
class QueryFilterBackend(DjangoFilterBackend):  # type: ignore[misc]
    """Filters from the query string; invalid values are reported with `location: query`."""

    def filter_queryset(self, request: Request, queryset: QuerySet[ModelT], view: APIView) -> QuerySet[ModelT]:
        if not _has_filter_params(request, view):
            return queryset  # nothing to filter: skip building and validating a form on every list page
        _require_shallow_values(request)
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        if not filterset.is_valid():
            raise QueryValidationError({name: list(errors) for name, errors in filterset.errors.items()})
        filtered: QuerySet[ModelT] = filterset.qs
        return filtered


def _require_shallow_values(request: Request) -> None:
    """Some filters take JSON (`metadata`): a value nested deeper than a body may be is refused before any
    filter decodes it, as the decoder recurses once per level."""
    limit = settings.API_MAX_JSON_DEPTH
    deep = {
        name: [f"Nested more than {limit} levels deep."]
        for name, values in request.query_params.lists()
        if any(json_depth_exceeds(value, limit=limit) for value in values)
    }
    if deep:
        raise QueryValidationError(deep)


def _has_filter_params(request: Request, view: APIView) -> bool:
    """Whether the query string may hold a filter: anything but paging, or a filterset with required filters."""
    filters = getattr(getattr(view, "filterset_class", None), "base_filters", {})
    required = any(f.extra.get("required") for f in filters.values())
    return required or bool(set(request.query_params) - PAGING_PARAMS)
