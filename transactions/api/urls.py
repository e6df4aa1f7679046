from django.urls import path

from payments.rest.routers import ApiRouter
from transactions.api.card_details import CardDetailsViewSet
from transactions.api.sessions import TransactionSessionViewSet
from transactions.api.views import (
    PaymentOptionsViewSet,
    RefundViewSet,
    TransactionCaptureViewSet,
    TransactionEventViewSet,
    TransactionRefundViewSet,
    TransactionViewSet,
)

router = ApiRouter()
router.register("transactions", TransactionViewSet, basename="transaction")

refunds = TransactionRefundViewSet.as_view({"get": "list", "post": "create"})
refund = TransactionRefundViewSet.as_view({"get": "retrieve"})
refund_everything = TransactionRefundViewSet.as_view({"post": "all"})

captures = TransactionCaptureViewSet.as_view({"get": "list"})
capture = TransactionCaptureViewSet.as_view({"get": "retrieve"})

urlpatterns = [
    *router.urls,
    path("transactions/<str:transaction_id>/refunds", refunds, name="transaction-refund-list"),
    path("transactions/<str:transaction_id>/refunds/all", refund_everything, name="transaction-refund-all"),
    path("transactions/<str:transaction_id>/refunds/<str:refund_id>", refund, name="transaction-refund-detail"),
    path("transactions/<str:transaction_id>/captures", captures, name="transaction-capture-list"),
    path("transactions/<str:transaction_id>/captures/<str:capture_id>", capture, name="transaction-capture-detail"),
    path(
        "transactions/<str:transaction_id>/events",
        TransactionEventViewSet.as_view({"get": "list"}),
        name="transaction-event-list",
    ),
    path(
        "transactions/<str:transaction_id>/session",
        TransactionSessionViewSet.as_view({"post": "create"}),
        name="transaction-session",
    ),
    path("card-details", CardDetailsViewSet.as_view({"get": "list"}), name="card-details"),
    path("payment-options", PaymentOptionsViewSet.as_view({"post": "create"}), name="payment-options"),
    path("refunds/<str:refund_id>", RefundViewSet.as_view({"get": "retrieve"}), name="refund-detail"),
]
