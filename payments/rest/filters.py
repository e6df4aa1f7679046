"""django-filter wired to the error envelope: a bad filter is a 400 naming the query parameter.

Also the filter kinds every list shares: date-times that must carry an offset, `true` / `false` flags, and
filters over a state this server never enters, which answer truthfully (nothing, or everything) instead of
being ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import django_filters
from django import forms
from django.conf import settings
from django.db.models import Model, QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework.request import Request

from payments.rest.envelope import QueryValidationError
from payments.rest.parsers import json_depth_exceeds
from payments.rest.query import names_more_than_paging

if TYPE_CHECKING:
    from rest_framework.views import APIView

ModelT = TypeVar("ModelT", bound=Model)
FilterMethod = Callable[[QuerySet[Any], str, Any], QuerySet[Any]]

TRUE_FALSE = [("true", "true"), ("false", "false")]


# django-filter ships no types, so its classes are Any to mypy: subclassing one is allowed here on purpose.
class QueryFilterBackend(DjangoFilterBackend):  # type: ignore[misc]
    """Filters from the query string; invalid values are reported with `location: query`."""

    def filter_queryset(self, request: Request, queryset: QuerySet[ModelT], view: APIView) -> QuerySet[ModelT]:
        if not _has_filter_params(request, view):
            return queryset  # nothing to filter: skip building and validating a form on every list page
        _require_shallow_values(request)
        _require_typed_values(request, view)
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


def _require_typed_values(request: Request, view: APIView) -> None:
    """An empty id, date-time, number or flag (`?buyer_id=`) is a 400, as any other value that is none of these:
    django-filter would drop it and answer the whole list, which a client cannot tell from a real answer."""
    filters = getattr(getattr(view, "filterset_class", None), "base_filters", {})
    empty = {
        name: ["Give a value, or leave the parameter out."]
        for name, values in request.query_params.lists()
        if name in filters and "" in values and _typed(filters[name].field_class)
    }
    if empty:
        raise QueryValidationError(empty)


def _typed(field_class: type[forms.Field]) -> bool:
    """Any form field but free text (Django's UUIDField is a CharField too)."""
    return issubclass(field_class, forms.UUIDField) or not issubclass(field_class, forms.CharField)


def _has_filter_params(request: Request, view: APIView) -> bool:
    """Whether the query string may hold a filter: anything but paging, or a filterset with required filters."""
    filters = getattr(getattr(view, "filterset_class", None), "base_filters", {})
    required = any(f.extra.get("required") for f in filters.values())
    return required or names_more_than_paging(request.query_params)


class OffsetDateTimeField(forms.DateTimeField):
    """An ISO 8601 date-time with its UTC offset, as UTC.

    Python reads offsets up to ±23:59 where PostgreSQL takes ±15:59 at most: converting here means any offset
    the parser accepts filters correctly instead of failing in the database.
    """

    default_error_messages = {
        "invalid": "Must be an ISO 8601 date-time with a UTC offset, e.g. 2026-01-01T00:00:00Z.",
        "naive": "Must include a UTC offset (Z or ±hh:mm).",
        "range": "Must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z in UTC.",
    }

    def to_python(self, value: Any) -> datetime | None:
        if value in self.empty_values:
            return None
        try:
            parsed = datetime.fromisoformat(str(value).strip())
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None
        if parsed.tzinfo is None:
            raise forms.ValidationError(self.error_messages["naive"], code="invalid")
        try:
            # 0001-01-01T00:00:00+01:00 is a moment before year 1 in UTC: no datetime can hold it.
            return parsed.astimezone(UTC)
        except OverflowError:
            raise forms.ValidationError(self.error_messages["range"], code="invalid") from None


class OffsetDateTimeFilter(django_filters.DateTimeFilter):  # type: ignore[misc]  # untyped base, as above
    """`created_at_gte=2026-01-01T00:00:00+02:00`: compared in UTC."""

    field_class = OffsetDateTimeField


@extend_schema_field(OpenApiTypes.BOOL)
class TrueFalseFilter(django_filters.TypedChoiceFilter):  # type: ignore[misc]
    """`true` or `false`, as the SDK sends booleans; anything else is a 400."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.update(choices=TRUE_FALSE, coerce=lambda value: value == "true")
        super().__init__(*args, **kwargs)


def matches_nothing(queryset: QuerySet[ModelT], name: str, value: object) -> QuerySet[ModelT]:
    """A filter on a value no row has (a link to something this server never creates): nothing matches."""
    return queryset.none()


def always(value: bool) -> FilterMethod:
    """A `true`/`false` filter on a state every row is in (`value`) or none is: all rows, or none."""

    def method(queryset: QuerySet[Any], name: str, wanted: bool) -> QuerySet[Any]:
        return queryset if wanted is value else queryset.none()

    return method
