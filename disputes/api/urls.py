from django.urls import path

from disputes.api.views import DisputeViewSet

urlpatterns = [
    path(
        "transactions/<str:transaction_id>/disputes",
        DisputeViewSet.as_view({"get": "list"}),
        name="transaction-dispute-list",
    ),
]
