from django.urls import path

from settlements.api.views import (
    ChargebackReversalViewSet,
    ChargebackViewSet,
    RefundSettlementViewSet,
    SettlementViewSet,
)

PREFIX = "transactions/<str:transaction_id>"

urlpatterns = [
    path(f"{PREFIX}/settlements", SettlementViewSet.as_view({"get": "list"}), name="transaction-settlement-list"),
    path(
        f"{PREFIX}/settlements/<str:settlement_id>",
        SettlementViewSet.as_view({"get": "retrieve"}),
        name="transaction-settlement-detail",
    ),
    path(
        f"{PREFIX}/refund-settlements",
        RefundSettlementViewSet.as_view({"get": "list"}),
        name="transaction-refund-settlement-list",
    ),
    path(
        f"{PREFIX}/refund-settlements/<str:settlement_id>",
        RefundSettlementViewSet.as_view({"get": "retrieve"}),
        name="transaction-refund-settlement-detail",
    ),
    path(f"{PREFIX}/chargebacks", ChargebackViewSet.as_view({"get": "list"}), name="transaction-chargeback-list"),
    path(
        f"{PREFIX}/chargeback-reversals",
        ChargebackReversalViewSet.as_view({"get": "list"}),
        name="transaction-chargeback-reversal-list",
    ),
]
