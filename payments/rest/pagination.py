"""Keyset cursor pagination shared by every list endpoint.

Rows are ordered newest first on `(created_at, id)`, a unique key, so a page is a range scan from a
position: pages never skip or repeat a row while others are inserted or deleted, and the thousandth
page costs what the first does (no OFFSET, no COUNT). Cursors are short signed tokens that remember a
position and a direction, bound to the endpoint and its filters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.core import signing
from django.db.models import BooleanField, Expression, QuerySet
from django.db.models.sql.where import AND
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response

from payments.rest.envelope import QueryValidationError
from payments.rest.query import PAGING_PARAMS
from payments.timestamped import TimestampedModel

if TYPE_CHECKING:
    from rest_framework.views import APIView

T = TypeVar("T")


@dataclass(frozen=True)
class Cursor:
    """A position between rows and the direction to read from it."""

    forward: bool  # True: older rows (the next page); False: newer rows (the previous page)
    created_at: datetime
    pk: str
    inclusive: bool = False  # include the row at the position itself (used after an emptied page)


class KeysetBound(Expression):
    """`(created_at, id) < (%s, %s)` (or `<=`, `>`, `>=`): a page's edge as one row comparison, which the keyset index
    answers on PostgreSQL and SQLite alike.

    Django's tuple lookups (`TupleLessThan`) write the same text, but find each column through `F()`'s path of
    relations and build and compile a lookup per element on every query: about 340,000 instructions a page, nearly a
    third of what a page from a cursor cost beyond a first page.
    """

    conditional = True
    output_field = BooleanField()

    def __init__(self, operator: str, cursor: Cursor) -> None:
        super().__init__()
        self.operator, self.position = operator, (cursor.created_at, cursor.pk)
        self.columns: list[Any] = []

    def resolve_expression(self, query: Any = None, *args: Any, **kwargs: Any) -> KeysetBound:
        # The page's own table's columns, named as `F()` would name them without walking `F()`'s path of relations:
        # a page's model has both as columns of its own table (no listed model inherits from a concrete one).
        bound = self.copy()
        alias, meta = query.get_initial_alias(), query.get_meta()
        bound.columns = [meta.get_field("created_at").get_col(alias), meta.pk.get_col(alias)]
        return bound

    def get_source_expressions(self) -> list[Any]:
        return self.columns

    def set_source_expressions(self, exprs: Sequence[Any]) -> None:
        self.columns = list(exprs)

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, tuple[Any, ...]]:
        names = ", ".join(compiler.compile(column)[0] for column in self.columns)
        values = tuple(
            column.output_field.get_db_prep_value(value, connection)
            for column, value in zip(self.columns, self.position, strict=True)
        )
        return f"({names}) {self.operator} (%s, %s)", values


def _bounded(queryset: QuerySet[TimestampedModel], bound: KeysetBound) -> QuerySet[TimestampedModel]:
    """`queryset` with `bound` added to its `WHERE`, as `filter()` adds it less the work around it: `filter()` wraps a
    condition that is not a lookup in an `= true` lookup, built and then compiled away, for every page from a cursor."""
    bounded = queryset.all()  # a copy: the caller's query is left as it was
    bounded.query.where.add(bound.resolve_expression(bounded.query), AND)
    return bounded


class KeysetCursorPagination(BasePagination):
    """`{"items", "limit", "next_cursor", "previous_cursor"}` with `limit` 1..100 (default 20)."""

    default_limit = 20
    max_limit = 100
    cursor_query_param = "cursor"
    limit_query_param = "limit"

    # Keyset pages filter and order a queryset of timestamped rows; DRF's base also admits plain sequences.
    def paginate_queryset(  # type: ignore[override]
        self, queryset: QuerySet[TimestampedModel], request: Request, view: APIView | None = None
    ) -> list[TimestampedModel]:
        self.limit = self._parse_limit(request)
        self.signer = signing.Signer(key=settings.CURSOR_SIGNING_KEY, salt=self._binding(request))
        cursor = self._parse_cursor(request)
        rows, self.has_newer, self.has_older = self._fetch(queryset, cursor)
        self.next_cursor = (
            self._encode(Cursor(True, rows[-1].created_at, str(rows[-1].pk))) if rows and self.has_older else None
        )
        self.previous_cursor = (
            self._encode(Cursor(False, rows[0].created_at, str(rows[0].pk))) if rows and self.has_newer else None
        )
        if not rows and cursor is not None:
            # An emptied page still offers a way back to the rows around its position.
            back = Cursor(not cursor.forward, cursor.created_at, cursor.pk, inclusive=True)
            if cursor.forward:
                self.previous_cursor = self._encode(back)
            else:
                self.next_cursor = self._encode(back)
        return rows

    def get_paginated_response(self, data: list[dict[str, Any]]) -> Response:
        return Response(
            {
                "items": data,
                "limit": self.limit,
                "next_cursor": self.next_cursor,
                "previous_cursor": self.previous_cursor,
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["items", "limit"],
            "properties": {
                "items": schema,
                "limit": {"type": "integer", "minimum": 1, "maximum": self.max_limit, "default": self.default_limit},
                "next_cursor": {"type": "string", "nullable": True},
                "previous_cursor": {"type": "string", "nullable": True},
            },
        }

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        return [
            {
                "name": self.cursor_query_param,
                "in": "query",
                "required": False,
                "description": "A `next_cursor` or `previous_cursor` from an earlier page.",
                "schema": {"type": "string"},
            },
            {
                "name": self.limit_query_param,
                "in": "query",
                "required": False,
                "description": "Items per page.",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_limit, "default": self.default_limit},
            },
        ]

    def _fetch(
        self, queryset: QuerySet[TimestampedModel], cursor: Cursor | None
    ) -> tuple[list[TimestampedModel], bool, bool]:
        """One query: the page plus one row that tells whether more lie beyond it."""
        if cursor is None or cursor.forward:
            if cursor is not None:
                queryset = _bounded(queryset, KeysetBound("<=" if cursor.inclusive else "<", cursor))
            rows = list(queryset.order_by("-created_at", "-pk")[: self.limit + 1])
            return rows[: self.limit], cursor is not None, len(rows) > self.limit
        queryset = _bounded(queryset, KeysetBound(">=" if cursor.inclusive else ">", cursor))
        rows = list(queryset.order_by("created_at", "pk")[: self.limit + 1])
        page = rows[: self.limit]
        page.reverse()
        return page, len(rows) > self.limit, True

    def _parse_limit(self, request: Request) -> int:
        raw = request.query_params.get(self.limit_query_param)
        if raw is None:
            return self.default_limit
        try:
            limit = int(raw)
        except ValueError:
            limit = 0
        if not 1 <= limit <= self.max_limit:
            raise QueryValidationError(
                {"limit": [f"Must be a whole number from 1 to {self.max_limit}."]}, code="invalid"
            )
        return limit

    def _binding(self, request: Request) -> str:
        """A cursor only works on the endpoint and filters it was made for."""
        filters = sorted((k, v) for k, values in request.query_params.lists() if k not in PAGING_PARAMS for v in values)
        digest = hashlib.sha256(repr((request.path, filters)).encode()).hexdigest()[:32]
        return f"payments.cursor:{digest}"

    def _encode(self, cursor: Cursor) -> str:
        flags = ("n" if cursor.forward else "p") + ("i" if cursor.inclusive else "")
        # Not compressed: a position is too short for zlib to shorten, and trying cost 40 % of a cursor's signing.
        return self.signer.sign_object([flags, cursor.created_at.isoformat(), cursor.pk])

    def _parse_cursor(self, request: Request) -> Cursor | None:
        raw = request.query_params.get(self.cursor_query_param)
        if raw is None:
            return None
        try:
            flags, created_at, pk = self.signer.unsign_object(raw)
            return Cursor("n" in flags, datetime.fromisoformat(created_at), str(pk), inclusive="i" in flags)
        except (signing.BadSignature, ValueError, TypeError) as exc:
            raise QueryValidationError(
                {"cursor": ["Not a cursor issued for this list and these filters."]}, code="invalid"
            ) from exc


class SequencePagination(KeysetCursorPagination):
    """The same page shape over a short, fixed list the server defines in code (roles): the cursor is a signed
    position in it, bound to the endpoint like a keyset cursor."""

    def paginate_sequence(self, items: Sequence[T], request: Request) -> dict[str, Any]:
        """`{"items", "limit", "next_cursor", "previous_cursor"}` of the page the request asks for."""
        limit = self._parse_limit(request)
        signer = signing.Signer(key=settings.CURSOR_SIGNING_KEY, salt=self._binding(request))
        raw = request.query_params.get(self.cursor_query_param)
        start = 0
        if raw is not None:
            try:
                start = int(signer.unsign(raw))
            except (signing.BadSignature, ValueError) as exc:
                raise QueryValidationError({"cursor": ["Not a cursor issued for this list."]}, code="invalid") from exc
        return {
            "items": list(items[start : start + limit]),
            "limit": limit,
            "next_cursor": signer.sign(str(start + limit)) if start + limit < len(items) else None,
            "previous_cursor": signer.sign(str(max(start - limit, 0))) if start > 0 else None,
        }
