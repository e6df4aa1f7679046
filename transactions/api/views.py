"""HTTP for transactions and refunds: validate, call one service or selector, render."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.models import Buyer
from buyers.selectors import buyer_get
from checkout.selectors import checkout_session_get
from giftcards.selectors import issued_card_for_payment
from payments.connectors import CardDetails, ConnectorResult
from payments.errors import DomainError, NotFound
from payments.models import VaultedCard
from payments.ratelimits.throttles import EmbedTokenThrottle, RateLimitedMixin
from payments.rest.fields import validated
from payments.rest.idempotency import idempotent
from transactions.api.filters import TransactionFilter
from transactions.api.pinning import require_pinned_claims
from transactions.api.serializers import (
    RefundAllInput,
    RefundCreateInput,
    RefundOutput,
    TransactionCaptureInput,
    TransactionCreateInput,
    TransactionOutput,
    TransactionUpdateInput,
)
from transactions.models import Refund, Transaction
from transactions.selectors import refund_get, refund_list, transaction_get, transaction_list
from transactions.services import (
    Actor,
    GiftCardCharge,
    refund_all,
    refund_create,
    transaction_cancel,
    transaction_capture,
    transaction_create,
    transaction_update,
    transaction_void,
)

PREFER = OpenApiParameter("prefer", str, OpenApiParameter.HEADER, required=False, many=True)
IDEMPOTENCY_KEY = OpenApiParameter("idempotency-key", str, OpenApiParameter.HEADER, required=False)


def _actor(request: Request) -> Actor:
    return Actor.api_key(request.user.kid)


def _prefers(request: Request, resource: str) -> bool:
    """`Prefer: resource=<name>`; the header may list several preferences, comma separated."""
    values = [part.strip() for part in request.headers.get("Prefer", "").split(",")]
    return f"resource={resource}" in values


def _action_body(resource: str, txn: Transaction, result: ConnectorResult | None) -> dict[str, Any]:
    """The `TransactionCapture` / `TransactionVoid` / `TransactionCancel` wrapper around the transaction."""
    return {
        "type": resource,
        "status": "succeeded" if result is None or result.approved else str(result.outcome),
        "code": result.error_code if result else None,
        "raw_response_code": result.raw_response_code if result else None,
        "raw_response_description": result.raw_response_description if result else None,
        "transaction": TransactionOutput(txn).data,
    }


class TransactionViewSet(RateLimitedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Transaction.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "transactions"
    embed_actions = ("create",)
    # Per embed token (docs/rate-limits.md); server tokens are never limited.
    rate_limits = {"create": (EmbedTokenThrottle,)}
    serializer_class = TransactionOutput
    filterset_class = TransactionFilter
    lookup_url_kwarg = "transaction_id"
    http_method_names = ["get", "post", "put"]

    def get_queryset(self) -> QuerySet[Transaction]:
        return transaction_list(merchant_account=self.request.merchant_account)

    def get_object(self) -> Transaction:
        return transaction_get(merchant_account=self.request.merchant_account, id=self.kwargs["transaction_id"])

    @extend_schema(request=TransactionCreateInput, responses={201: TransactionOutput}, parameters=[IDEMPOTENCY_KEY])
    @idempotent
    def create(self, request: Request) -> Response:
        data = validated(TransactionCreateInput(data=request.data))
        require_pinned_claims(request.user, data)
        txn = transaction_create(
            merchant_account=request.merchant_account,
            actor=_actor(request),
            amount=data["amount"],
            currency=data["currency"],
            intent=data["intent"],
            gift_cards=self._gift_cards(data.get("gift_cards") or []),
            country=data.get("country"),
            external_identifier=data.get("external_identifier"),
            metadata=data.get("metadata"),
            cart_items=data.get("cart_items"),
            airline=data.get("airline"),
            payment_source=data["payment_source"],
            merchant_initiated=data["merchant_initiated"],
            is_subsequent_payment=data["is_subsequent_payment"],
            account_funding_transaction=data["account_funding_transaction"],
            guest_buyer=data.get("buyer"),
            buyer=self._buyer(data),
            **self._payment_method(data.get("payment_method")),
        )
        return Response(TransactionOutput(txn).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=TransactionUpdateInput, responses={200: TransactionOutput})
    def update(self, request: Request, transaction_id=None) -> Response:
        data = validated(TransactionUpdateInput(data=request.data))
        txn = transaction_update(txn=self.get_object(), actor=_actor(request), **data)
        return Response(TransactionOutput(txn).data)

    @extend_schema(request=TransactionCaptureInput, parameters=[PREFER, IDEMPOTENCY_KEY])
    @action(detail=True, methods=["post"])
    @idempotent
    def capture(self, request: Request, transaction_id=None) -> Response:
        data = validated(TransactionCaptureInput(data=request.data))
        outcome = transaction_capture(txn=self.get_object(), actor=_actor(request), amount=data.get("amount"))
        if _prefers(request, "transaction-capture"):
            return Response(_action_body("transaction-capture", outcome.transaction, outcome.result))
        return Response(TransactionOutput(outcome.transaction).data)

    @extend_schema(request=None, parameters=[PREFER, IDEMPOTENCY_KEY])
    @action(detail=True, methods=["post"])
    @idempotent
    def void(self, request: Request, transaction_id=None) -> Response:
        outcome = transaction_void(txn=self.get_object(), actor=_actor(request))
        if _prefers(request, "transaction-void"):
            return Response(_action_body("transaction-void", outcome.transaction, outcome.result))
        return Response(TransactionOutput(outcome.transaction).data)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, transaction_id=None) -> Response:
        txn = transaction_cancel(txn=self.get_object(), actor=_actor(request))
        return Response(_action_body("transaction-cancel", txn, None))

    # --- resolving what the body names (reads only; the service does the writing) ---------------------

    def _buyer(self, data: dict) -> Buyer | None:
        lookup = {
            key: data[field]
            for field, key in (("buyer_id", "id"), ("buyer_external_identifier", "external_identifier"))
            if data.get(field) is not None
        }
        if not lookup:
            return None
        try:
            return buyer_get(merchant_account=self.request.merchant_account, **lookup)
        except NotFound as exc:
            field = "buyer_id" if "id" in lookup else "buyer_external_identifier"
            raise DomainError("No buyer with this identifier exists.", pointer=f"/{field}") from exc

    def _gift_cards(self, items: list[dict]) -> list[GiftCardCharge]:
        return [
            GiftCardCharge(
                card=issued_card_for_payment(
                    merchant_account=self.request.merchant_account,
                    number=item.get("number"),
                    pin=item.get("pin"),
                    gift_card_id=item.get("id"),
                    pointer=f"/gift_cards/{index}",
                ),
                amount=item["amount"],
                gift_card_id=item.get("id"),
            )
            for index, item in enumerate(items)
        ]

    def _payment_method(self, method: dict | None) -> dict[str, Any]:
        if method is None:
            return {}
        if method["method"] == "card":
            expiry = method["expiration_date"]
            card = CardDetails(
                number=method["number"],
                expiration_month=expiry.month,
                expiration_year=expiry.year,
                security_code=method.get("security_code"),
            )
            return {"card": card}
        return {"vaulted_card": self._session_card(method["id"]), "checkout_session_id": method["id"]}

    def _session_card(self, session_id) -> VaultedCard:
        session = checkout_session_get(merchant_account=self.request.merchant_account, id=session_id)
        if session.card is None:
            raise DomainError("The checkout session has no card details yet.", pointer="/payment_method/id")
        return session.card


class TransactionRefundViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """`/transactions/{id}/refunds[...]`."""

    queryset = Refund.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "transactions"
    # Upstream lets a gift card writer refund everything, gift cards included.
    action_scopes = {"all": ("transactions.write", "gift-cards.write")}
    serializer_class = RefundOutput
    http_method_names = ["get", "post"]

    def _transaction(self) -> Transaction:
        return transaction_get(merchant_account=self.request.merchant_account, id=self.kwargs["transaction_id"])

    def get_queryset(self):
        return refund_list(txn=self._transaction())

    @extend_schema(responses={200: RefundOutput})
    def retrieve(self, request: Request, transaction_id=None, refund_id=None) -> Response:
        refund = refund_get(merchant_account=request.merchant_account, id=refund_id, txn=self._transaction())
        return Response(RefundOutput(refund).data)

    @extend_schema(request=RefundCreateInput, responses={201: RefundOutput}, parameters=[IDEMPOTENCY_KEY])
    @idempotent
    def create(self, request: Request, transaction_id=None) -> Response:
        data = validated(RefundCreateInput(data=request.data))
        refund = refund_create(txn=self._transaction(), actor=_actor(request), **data)
        return Response(RefundOutput(refund).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=RefundAllInput, parameters=[IDEMPOTENCY_KEY])
    @idempotent
    def all(self, request: Request, transaction_id=None) -> Response:
        data = validated(RefundAllInput(data=request.data if request.data is not None else {}))
        refunds = refund_all(txn=self._transaction(), actor=_actor(request), **data)
        items = RefundOutput(refunds, many=True).data
        return Response(
            {"items": items, "limit": max(len(items), 1), "next_cursor": None, "previous_cursor": None},
            status=status.HTTP_201_CREATED,
        )


class RefundViewSet(viewsets.GenericViewSet):
    """`GET /refunds/{refund_id}`."""

    queryset = Refund.objects.none()  # names the model for the schema
    scope_resource = "transactions"
    serializer_class = RefundOutput

    @extend_schema(responses={200: RefundOutput})
    def retrieve(self, request: Request, refund_id=None) -> Response:
        return Response(RefundOutput(refund_get(merchant_account=request.merchant_account, id=refund_id)).data)
