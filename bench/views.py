"""Reference cases for the benchmark, never mounted by the project itself.

- peer: what a stock Django REST framework service looks like: a `ModelViewSet` over the same table,
  DRF's `CursorPagination` on `-created_at`, simplejwt's stock `JWTAuthentication` (the signature checked
  on every request, then a user lookup).
- offset peer: the same with `LimitOffsetPagination` (a COUNT and an OFFSET on every page).
- floor: the least any Django view can do for the same page: the keyset query on a raw cursor, JSON out.
"""

import json

from django.db import connection
from django.http import HttpRequest, JsonResponse
from rest_framework import serializers, viewsets
from rest_framework.pagination import CursorPagination, LimitOffsetPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework_simplejwt.authentication import JWTAuthentication

from buyers.models import Buyer

FLOOR_MERCHANT_ACCOUNT = "default"


class PeerBuyerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Buyer
        fields = [
            "id",
            "merchant_account",
            "display_name",
            "external_identifier",
            "account_number",
            "billing_details",
            "created_at",
            "updated_at",
        ]


class PeerCursorPagination(CursorPagination):
    ordering = "-created_at"
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100


class PeerBuyerViewSet(viewsets.ModelViewSet):
    queryset = Buyer.objects.all()
    serializer_class = PeerBuyerSerializer
    authentication_classes = [JWTAuthentication]
    permission_classes = [IsAuthenticated]
    pagination_class = PeerCursorPagination
    filter_backends = []
    throttle_classes = []


class OffsetPeerBuyerViewSet(PeerBuyerViewSet):
    pagination_class = LimitOffsetPagination


_FLOOR_QUERY = """
    SELECT id, merchant_account_id, display_name, external_identifier, account_number, billing_details,
           created_at, updated_at
    FROM buyers_buyer
    WHERE merchant_account_id = %s {position}
    ORDER BY created_at DESC, id DESC
    LIMIT %s
"""


def floor_buyers(request: HttpRequest) -> JsonResponse:
    """`?limit=20[&before=<created_at>,<id>]`: one keyset page, no authentication, no framework."""
    limit = int(request.GET.get("limit", 20))
    params: list = [FLOOR_MERCHANT_ACCOUNT]
    position = ""
    if before := request.GET.get("before"):
        created_at, pk = before.split(",")
        position = "AND (created_at, id) < (%s, %s)"
        params += [created_at, pk]
    with connection.cursor() as cursor:
        cursor.execute(_FLOOR_QUERY.format(position=position), [*params, limit + 1])
        rows = cursor.fetchall()
    items = [_floor_item(row) for row in rows[:limit]]
    last = rows[limit - 1] if len(rows) > limit else None
    next_cursor = f"{last[6].isoformat()},{last[0]}" if last else None
    return JsonResponse({"items": items, "limit": limit, "next_cursor": next_cursor, "previous_cursor": None})


def _floor_item(row: tuple) -> dict:
    pk, account, display_name, external_identifier, account_number, billing_details, created_at, updated_at = row
    return {
        "type": "buyer",
        "id": str(pk),
        "merchant_account_id": account,
        "display_name": display_name,
        "external_identifier": external_identifier,
        "billing_details": json.loads(billing_details) if isinstance(billing_details, str) else billing_details,
        "account_number": account_number,
        "created_at": created_at.isoformat(),
        "updated_at": updated_at.isoformat(),
    }
