"""The project's URLs plus the benchmark's reference cases under `/bench/`."""

from django.urls import path

from bench.views import OffsetPeerBuyerViewSet, PeerBuyerViewSet, floor_buyers
from config.urls import urlpatterns as project_urlpatterns

urlpatterns = [
    path("bench/peer/buyers", PeerBuyerViewSet.as_view({"get": "list"}), name="bench-peer"),
    path("bench/offset-peer/buyers", OffsetPeerBuyerViewSet.as_view({"get": "list"}), name="bench-offset-peer"),
    path("bench/floor/buyers", floor_buyers, name="bench-floor"),
    *project_urlpatterns,
]
