"""Every query parameter is one the endpoint reads: anything else is a 400 naming it, never silently ignored.

A misspelt or unsupported filter would otherwise answer 200 with the whole list, which a client cannot tell
from a real answer. An endpoint reads:
- on a list: its filterset's filters, and `cursor` / `limit` when it is paginated;
- on any action: the names in the view's `query_parameters` (for a query read by a serializer).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from payments.rest.envelope import QueryValidationError

if TYPE_CHECKING:
    from rest_framework.views import APIView

# Read by the paginator, never by a filterset.
PAGING_PARAMS = frozenset({"cursor", "limit"})
UNSUPPORTED_PARAMETER = "Not a supported query parameter of this endpoint."


def names_more_than_paging(query: Iterable[str]) -> bool:
    """Whether a query string's parameter names hold anything besides paging: a filter or a search."""
    return not PAGING_PARAMS.issuperset(query)


def query_parameters(view: APIView) -> frozenset[str]:
    """The query parameters `view` reads for the current action."""
    names = set(getattr(view, "query_parameters", ()))
    if getattr(view, "action", None) == "list":
        filterset = getattr(view, "filterset_class", None)
        names.update(getattr(filterset, "base_filters", ()))
        if getattr(view, "pagination_class", None) is not None:
            names.update(PAGING_PARAMS)
    return frozenset(names)


class KnownQueryParameters(BasePermission):
    """Refuse a request whose query string names a parameter the endpoint does not read (after the
    authentication and scope checks, so a caller without access learns nothing about parameters)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if getattr(view, (request.method or "").lower(), None) is None:
            return True  # a method the endpoint does not have: its 405 comes first
        unknown = sorted(set(request.query_params) - query_parameters(view))
        if unknown:
            raise QueryValidationError({name: [UNSUPPORTED_PARAMETER] for name in unknown}, code="unsupported")
        return True


def query_values(request: Request) -> dict[str, str]:
    """The query string as the data of a query serializer: one value per name.

    DRF takes an empty `?name=` in a QueryDict for an absent optional field, so a blank filter would be
    ignored; a plain dict makes the serializer judge the blank (and refuse it). A name given twice is refused
    rather than having one of its values win silently.
    """
    repeated = sorted(name for name, values in request.query_params.lists() if len(values) > 1)
    if repeated:
        raise QueryValidationError({name: ["Give this parameter once."] for name in repeated})
    return request.query_params.dict()
