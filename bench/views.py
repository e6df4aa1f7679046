"""Reference cases for the benchmark, never mounted by the project itself.

- peer: what a stock Django REST framework service looks like: a `ModelViewSet` over the same table and columns
  (a model of its own with Django's stock fields, bench/models.py), DRF's `CursorPagination` on `-created_at`,
  simplejwt's stock `JWTAuthentication` (the signature checked on every request, then a user lookup).
- offset peer: the same with `LimitOffsetPagination` (a COUNT and an OFFSET on every page).
- floor: the bare floor's view (bench/bare.py: the keyset query on a raw cursor, JSON out), here behind the
  project's settings and middleware.
"""

from rest_framework import serializers, viewsets
from rest_framework.pagination import BasePagination, CursorPagination, LimitOffsetPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework_simplejwt.authentication import JWTAuthentication

from bench.bare import bare_buyers as floor_buyers
from bench.models import PeerBuyer

__all__ = ["OffsetPeerBuyerViewSet", "PeerBuyerViewSet", "PeerCursorPagination", "floor_buyers"]


class PeerBuyerSerializer(serializers.ModelSerializer):
    class Meta:
        model = PeerBuyer
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
    queryset = PeerBuyer.objects.all()
    serializer_class = PeerBuyerSerializer
    authentication_classes = [JWTAuthentication]
    permission_classes = [IsAuthenticated]
    pagination_class: type[BasePagination] = PeerCursorPagination
    filter_backends = []
    throttle_classes = []


class OffsetPeerBuyerViewSet(PeerBuyerViewSet):
    pagination_class = LimitOffsetPagination
