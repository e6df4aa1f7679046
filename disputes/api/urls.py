from django.urls import path

from disputes.api.answers import DisputeAnswerViewSet
from disputes.api.views import DisputeViewSet

urlpatterns = [
    path(
        "transactions/<str:transaction_id>/disputes",
        DisputeViewSet.as_view({"get": "list"}),
        name="transaction-dispute-list",
    ),
    *(
        path(
            f"transactions/<str:transaction_id>/disputes/<str:dispute_id>/{action}",
            DisputeAnswerViewSet.as_view({"post": action}),
            name=f"transaction-dispute-{action}",
        )
        for action in ("accept", "defend")
    ),
]
