"""The upstream `Transaction`, `Refund` and capture/void/cancel shapes; every field they render is declared."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import prefetch_related_objects
from django.http import HttpRequest
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments.choices import PaymentIntent, PaymentSource
from payments.rest.fields import TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField
from payments.shapes.addresses import BillingDetailsSerializer
from payments.shapes.card_outputs import MaskedCardOutput
from payments.shapes.order import AirlineSerializer, CartItemSerializer, ShippingDetailsOutput
from payments.shapes.processor_data import (
    RecipientSerializer,
    StatementDescriptorSerializer,
    ThreeDSecureDataSerializer,
)
from paymentservices.models import PaymentService
from paymentservices.processors import processor_get
from transactions.api.serializers.fields import (
    NULL_OBJECT,
    NULL_STRING,
)
from transactions.disputes import transaction_disputed
from transactions.models import (
    CARD_METHODS,
    CaptureStatus,
    RedemptionStatus,
    RefundStatus,
    RefundTargetType,
    Transaction,
    TransactionStatus,
)
from transactions.pages.urls import approval_url
from transactions.related import REDEMPTIONS, REDEMPTIONS_READ, redemptions_of, related_prefetches
from transactions.services.approval_tokens import approval_token
from transactions.services.state import ActionResult

# --- outputs --------------------------------------------------------------------------------------------


class TransactionPaymentServiceOutput(OutputSerializer):
    """The upstream `TransactionPaymentService`: the payment service that processed the card part."""

    type = ConstantField("payment-service")
    id = serializers.UUIDField()
    payment_service_definition_id = serializers.CharField(source="definition_id")
    method = serializers.SerializerMethodField()
    display_name = serializers.CharField()

    def get_method(self, service: PaymentService) -> str:
        processor = processor_get(service.definition_id)
        return processor.method if processor is not None else "card"


class TransactionGiftCardOutput(OutputSerializer):
    """The upstream `TransactionGiftCard`: the card a redemption used, by its displayable digits."""

    type = ConstantField("gift-card")
    id = serializers.UUIDField(source="gift_card_id", allow_null=True, help_text="The stored gift card used, if any.")
    bin = serializers.CharField()
    sub_bin = serializers.CharField()
    last4 = serializers.CharField()


class GiftCardRedemptionOutput(OutputSerializer):
    """The upstream `GiftCardRedemption`."""

    type = ConstantField("gift-card-redemption")
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RedemptionStatus.choices)
    amount = serializers.IntegerField()
    refunded_amount = serializers.IntegerField()
    # The built-in program answers directly: there is no provider's redemption id.
    gift_card_service_redemption_id = ConstantField(None, schema=NULL_STRING)
    error_code = serializers.CharField(allow_null=True)
    raw_error_code = serializers.CharField(allow_null=True)
    raw_error_message = serializers.CharField(allow_null=True)
    gift_card = TransactionGiftCardOutput(source="*")


class TransactionPaymentMethodOutput(MaskedCardOutput):
    """The upstream `TransactionPaymentMethod` of a card payment, masked: never the number or security code."""

    # `card`, or the digital wallet whose device card paid (`applepay`, `googlepay`); upstream's `mode` says the same.
    method = serializers.ChoiceField(choices=CARD_METHODS)  # type: ignore[assignment]
    mode = serializers.ChoiceField(source="method", choices=CARD_METHODS)  # type: ignore[assignment]

    id = serializers.UUIDField(
        source="payment_method_id",
        allow_null=True,
        help_text="The stored payment method that paid, or that store: true made.",
    )
    # The 3-D Secure challenge page while the transaction waits for the buyer (TransactionSummaryOutput fills it).
    approval_url = ConstantField(None, schema=NULL_STRING)


class TransactionBuyerOutput(OutputSerializer):
    """The upstream `TransactionBuyer`: the buyer as it was when the transaction was made (or a guest)."""

    type = ConstantField("buyer")
    id = serializers.CharField(allow_null=True)
    display_name = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    billing_details = StoredJsonField(BillingDetailsSerializer(allow_null=True), allow_null=True)
    account_number = serializers.CharField(allow_null=True)


_PENDING = {TransactionStatus.PROCESSING, TransactionStatus.BUYER_APPROVAL_PENDING}
_REFUSED = {TransactionStatus.AUTHORIZATION_DECLINED, TransactionStatus.AUTHORIZATION_FAILED}


def intent_outcome(*, status: str, intent: str, authorized_at: datetime | None, captured_at: datetime | None) -> str:
    """Whether what the transaction was created to do (authorize, or capture) happened; from its columns, so a
    report's rows (read as values, not models) render it as the API does."""
    if status in _PENDING:
        return "pending"
    if status in _REFUSED:
        return "failed"
    done = captured_at if intent == PaymentIntent.CAPTURE else authorized_at
    return "succeeded" if done else "failed"


def transaction_approval_url(txn: Transaction, request: HttpRequest | None) -> str | None:
    """The challenge page's address while `txn` waits for the buyer and the challenge can still be completed, else
    None (`approval_tokens.approval_token`); `request` gives the host when PUBLIC_BASE_URL is not set."""
    token = approval_token(txn)
    if token is None:
        return None
    # A payment the buyer approves at the processor: its approve link (approval_token read the challenge).
    return txn.three_ds_challenge.approval_link or approval_url(token, request)


def _account_method(txn: Transaction) -> dict[str, Any]:
    """A payment method that is the buyer's account at the processor (PayPal): its method, shown by the payer's
    masked email as upstream labels it; the card's fields are null."""
    shown = dict.fromkeys(TransactionPaymentMethodOutput().fields)
    processor = processor_get(txn.payment_service.definition_id) if txn.payment_service is not None else None
    shown |= {"type": "payment-method", "method": txn.method, "mode": processor.mode if processor else "redirect"}
    shown["label"] = txn.payer_label
    return shown


_PAYMENT_METHOD = TransactionPaymentMethodOutput()
_BUYER = TransactionBuyerOutput()
_SHIPPING_DETAILS = ShippingDetailsOutput()


class ThreeDSecureErrorOutput(OutputSerializer):
    """The upstream `ThreeDSecureError`: why a 3-D Secure authentication gave no result (EMV 3DS error fields)."""

    code = serializers.CharField(allow_null=True)
    description = serializers.CharField(allow_null=True)
    detail = serializers.CharField(allow_null=True)
    component = serializers.CharField(allow_null=True)


class ThreeDSecureSummaryOutput(OutputSerializer):
    """The upstream `TransactionThreeDSecureSummary`: of the result the client sent, or of the authentication this
    server ran (docs/three-d-secure.md)."""

    version = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=["complete", "declined", "error"], allow_null=True)
    method = serializers.ChoiceField(choices=["challenge", "frictionless"], allow_null=True)
    response_data = serializers.SerializerMethodField()
    error_data = StoredJsonField(ThreeDSecureErrorOutput(allow_null=True), allow_null=True)
    amount = serializers.IntegerField(allow_null=True)

    @extend_schema_field(ThreeDSecureDataSerializer(allow_null=True))
    def get_response_data(self, summary: dict[str, Any]) -> dict[str, Any] | None:
        """The result as sent; upstream's version 2 shape has no `scheme`, so a version 2 result shows none."""
        data: dict[str, Any] | None = summary.get("response_data")
        if data and not str(summary.get("version", "")).startswith("1"):
            data = {name: value for name, value in data.items() if name != "scheme"}
        return data


class TransactionSummaryOutput(OutputSerializer):
    """The upstream `TransactionSummary`: a transaction as lists show it."""

    type = ConstantField("transaction")
    id = serializers.UUIDField()
    reconciliation_id = serializers.CharField()
    merchant_account_id = serializers.CharField()
    currency = serializers.CharField()
    amount = serializers.IntegerField(help_text="The total, gift cards included, in minor units.")
    status = serializers.ChoiceField(choices=TransactionStatus.choices)
    authorized_amount = serializers.IntegerField()
    captured_amount = serializers.IntegerField()
    refunded_amount = serializers.IntegerField()
    # From the processor's settlement records (docs/reconciliation.md): the net paid out, in its currency.
    settled_currency = serializers.CharField(allow_null=True)
    settled_amount = serializers.IntegerField()
    settled = serializers.BooleanField()
    country = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    intent = serializers.ChoiceField(choices=PaymentIntent.choices)
    payment_method = serializers.SerializerMethodField()
    method = serializers.CharField(allow_null=True)
    instrument_type = serializers.SerializerMethodField()
    error_code = serializers.CharField(allow_null=True)
    payment_service = TransactionPaymentServiceOutput(allow_null=True)
    pending_review = ConstantField(False)
    buyer = serializers.SerializerMethodField()
    raw_response_code = serializers.CharField(allow_null=True)
    raw_response_description = serializers.CharField(allow_null=True)
    shipping_details = serializers.SerializerMethodField()
    checkout_session_id = serializers.UUIDField(allow_null=True)
    # The list `to_representation` below leaves on the transaction (`transactions.related`).
    gift_card_redemptions = GiftCardRedemptionOutput(many=True, source=REDEMPTIONS_READ)
    gift_card_service = ConstantField(None, schema=NULL_OBJECT)
    created_at = TimestampField()
    updated_at = TimestampField()
    # A dispute is open, or the bank kept the money (docs/disputes.md).
    disputed = serializers.SerializerMethodField()
    reauthorized_from_transaction_id = ConstantField(None, schema=NULL_STRING)

    def to_representation(self, txn: Transaction) -> dict[str, Any]:
        # Redemptions are read twice (the list and `multi_tender`): one query, or none when a list prefetched them.
        prefetch_related_objects([txn], *related_prefetches(REDEMPTIONS))
        return super().to_representation(txn)

    @extend_schema_field(TransactionPaymentMethodOutput(allow_null=True))
    def get_payment_method(self, txn: Transaction) -> dict[str, Any] | None:
        if not txn.pays_with_method:
            return None
        shown = _PAYMENT_METHOD.to_representation(txn) if txn.pays_by_card else _account_method(txn)
        shown["approval_url"] = transaction_approval_url(txn, self.context.get("request"))
        return shown

    def get_disputed(self, txn: Transaction) -> bool:
        return transaction_disputed(txn)

    def get_instrument_type(self, txn: Transaction) -> str | None:
        # A wallet's payment is upstream's instrument of the wallet's name (`applepay`, `googlepay`).
        return ("pan" if txn.method == "card" else txn.method) if txn.pays_by_card else None

    @extend_schema_field(TransactionBuyerOutput(allow_null=True))
    def get_buyer(self, txn: Transaction) -> dict[str, Any] | None:
        return _BUYER.to_representation(txn.buyer_details) if txn.buyer_details else None

    @extend_schema_field(ShippingDetailsOutput(allow_null=True))
    def get_shipping_details(self, txn: Transaction) -> dict[str, Any] | None:
        return _SHIPPING_DETAILS.to_representation(txn.shipping_details) if txn.shipping_details else None


class TransactionOutput(TransactionSummaryOutput):
    """The upstream `Transaction`: the summary and everything the transaction was created with."""

    cvv_response_code = serializers.CharField(allow_null=True)
    airline = StoredJsonField(AirlineSerializer(allow_null=True), allow_null=True)
    payment_source = serializers.ChoiceField(choices=PaymentSource.choices)
    merchant_initiated = serializers.BooleanField()
    is_subsequent_payment = serializers.BooleanField()
    cart_items = StoredJsonField(CartItemSerializer(many=True, allow_null=True), allow_null=True)
    statement_descriptor = StoredJsonField(StatementDescriptorSerializer(allow_null=True), allow_null=True)
    three_d_secure = ThreeDSecureSummaryOutput(allow_null=True)
    payment_service_transaction_id = serializers.CharField(allow_null=True)
    # What the processor told beyond its codes, as it gave them (None when it did not).
    auth_response_code = serializers.CharField(allow_null=True)
    avs_response_code = serializers.CharField(allow_null=True)
    scheme_transaction_id = serializers.CharField(allow_null=True)
    merchant_advice_code = serializers.CharField(allow_null=True)
    iso_response_code = serializers.CharField(allow_null=True)
    approval_expires_at = TimestampField(allow_null=True)
    # No anti-fraud service, no links between transactions, no sessions.
    anti_fraud_decision = ConstantField(None, schema=NULL_OBJECT)
    transaction_link_id = ConstantField(None, schema=NULL_STRING)
    buyer_approval_timedout_at = TimestampField(allow_null=True)
    session_token = ConstantField(None, schema=NULL_STRING)
    additional_identifiers = ConstantField({})
    metadata = serializers.DictField(child=serializers.CharField(), allow_null=True)
    authorized_at = TimestampField(allow_null=True)
    captured_at = TimestampField(allow_null=True)
    voided_at = TimestampField(allow_null=True)
    canceled_at = TimestampField(allow_null=True)
    intent_outcome = serializers.SerializerMethodField()
    multi_tender = serializers.SerializerMethodField()
    account_funding_transaction = serializers.BooleanField()
    recipient = StoredJsonField(RecipientSerializer(allow_null=True), allow_null=True)
    installment_count = serializers.IntegerField(allow_null=True)
    tax_amount = serializers.IntegerField(allow_null=True)
    merchant_tax_id = serializers.CharField(allow_null=True)
    purchase_order_number = serializers.CharField(allow_null=True)
    customer_reference_number = serializers.CharField(allow_null=True)
    amount_includes_tax = serializers.BooleanField(allow_null=True)
    supplier_order_number = serializers.CharField(allow_null=True)
    duty_amount = serializers.IntegerField(allow_null=True)
    shipping_amount = serializers.IntegerField(allow_null=True)

    @extend_schema_field(serializers.ChoiceField(choices=["pending", "succeeded", "failed"]))
    def get_intent_outcome(self, txn: Transaction) -> str:
        return intent_outcome(
            status=txn.status, intent=txn.intent, authorized_at=txn.authorized_at, captured_at=txn.captured_at
        )

    def get_multi_tender(self, txn: Transaction) -> bool:
        """Paid with more than one instrument (gift cards and/or the payment method)."""
        return len(redemptions_of(txn)) + txn.pays_by_card > 1


class RefundOutput(OutputSerializer):
    """The upstream `Refund`."""

    type = ConstantField("refund")
    id = serializers.UUIDField()
    transaction_id = serializers.UUIDField()
    payment_service_refund_id = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=RefundStatus.choices)
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)
    target_type = serializers.ChoiceField(choices=RefundTargetType.choices)
    target_id = serializers.UUIDField(source="redemption_id", allow_null=True)
    reconciliation_id = serializers.CharField()
    external_identifier = serializers.CharField(allow_null=True)
    transaction_reconciliation_id = serializers.CharField(source="transaction.reconciliation_id")
    transaction_external_identifier = serializers.CharField(source="transaction.external_identifier", allow_null=True)
    created_at = TimestampField()
    updated_at = TimestampField()
    creator = ConstantField(None, schema=NULL_OBJECT)
    error_code = serializers.CharField(allow_null=True)
    raw_response_code = serializers.CharField(allow_null=True)
    raw_response_description = serializers.CharField(allow_null=True)
    settled_currency = serializers.CharField(allow_null=True)
    settled_amount = serializers.IntegerField()
    settled = serializers.BooleanField()


class RefundsOutput(OutputSerializer):
    """The upstream `Refunds`: the refunds `refunds/all` made, as one complete page."""

    items = RefundOutput(many=True)
    limit = serializers.IntegerField()
    next_cursor = ConstantField(None, schema=NULL_STRING)
    previous_cursor = ConstantField(None, schema=NULL_STRING)


class CaptureOutput(OutputSerializer):
    """The upstream `Capture`: one capture of the transaction's authorization."""

    type = ConstantField("capture")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    transaction_id = serializers.UUIDField()
    transaction_external_identifier = serializers.CharField(source="transaction.external_identifier", allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    status = serializers.ChoiceField(choices=CaptureStatus.choices)
    final = serializers.BooleanField()
    error_code = serializers.CharField(allow_null=True)
    raw_response_code = serializers.CharField(allow_null=True)
    raw_response_description = serializers.CharField(allow_null=True)
    # Order details are the transaction's here (a capture takes none of its own); no 3-D Secure per capture.
    cart_items = ConstantField(None, schema=NULL_OBJECT)
    iso_response_code = ConstantField(None, schema=NULL_STRING)
    xid = ConstantField(None, schema=NULL_STRING)
    captured_at = TimestampField(allow_null=True)
    created_at = TimestampField()
    updated_at = TimestampField()


class CapturesOutput(OutputSerializer):
    """The upstream `CaptureCollection`: a transaction's captures, as one complete page."""

    items = CaptureOutput(many=True)
    limit = serializers.IntegerField()
    next_cursor = ConstantField(None, schema=NULL_STRING)
    previous_cursor = ConstantField(None, schema=NULL_STRING)


# What a processor said to a capture or void (a cancel asks none, so it always succeeds).
ACTION_STATUSES = ["succeeded", "declined", "failed"]


class _TransactionActionOutput(OutputSerializer):
    """What a capture, void or cancel did, around the transaction it left (`Prefer: resource=...`)."""

    status = serializers.SerializerMethodField()
    code = serializers.SerializerMethodField()
    raw_response_code = serializers.SerializerMethodField()
    raw_response_description = serializers.SerializerMethodField()
    transaction = TransactionOutput()

    @extend_schema_field(serializers.ChoiceField(choices=ACTION_STATUSES))
    def get_status(self, outcome: ActionResult) -> str:
        return "succeeded" if outcome.result is None or outcome.result.approved else str(outcome.result.outcome)

    def get_code(self, outcome: ActionResult) -> str | None:
        return outcome.result.error_code if outcome.result else None

    def get_raw_response_code(self, outcome: ActionResult) -> str | None:
        return outcome.result.raw_response_code if outcome.result else None

    def get_raw_response_description(self, outcome: ActionResult) -> str | None:
        return outcome.result.raw_response_description if outcome.result else None


class TransactionCaptureOutput(_TransactionActionOutput):
    """The upstream `TransactionCapture`: what the capture did, and its record (none for gift cards alone)."""

    type = ConstantField("transaction-capture")
    capture_id = serializers.UUIDField(source="capture.pk", allow_null=True)
    payment_service_capture_id = serializers.CharField(source="capture.payment_service_capture_id", allow_null=True)
    external_identifier = serializers.CharField(source="capture.external_identifier", allow_null=True)

    @extend_schema_field(serializers.ChoiceField(choices=CaptureStatus.choices))
    def get_status(self, outcome: ActionResult) -> str:
        # A capture the processor did not answer in time is `pending` until sync or recovery records its word.
        if outcome.capture is not None and outcome.capture.status == CaptureStatus.PENDING:
            return str(CaptureStatus.PENDING)
        return super().get_status(outcome)


class TransactionVoidOutput(_TransactionActionOutput):
    """The upstream `TransactionVoid`."""

    type = ConstantField("transaction-void")

    @extend_schema_field(serializers.ChoiceField(choices=CaptureStatus.choices))  # upstream's VoidStatus: the same
    def get_status(self, outcome: ActionResult) -> str:
        # A void the processor did not answer in time is `pending` until sync or recovery records its word.
        if outcome.result is None and outcome.transaction.status == TransactionStatus.AUTHORIZATION_VOID_PENDING:
            return "pending"
        return super().get_status(outcome)


class TransactionCancelOutput(_TransactionActionOutput):
    """The upstream `TransactionCancel`."""

    type = ConstantField("transaction-cancel")


class TransactionAuthorizationIncrementOutput(_TransactionActionOutput):
    """The upstream `TransactionAuthorizationIncrement`: `succeeded`, or `failed` for any refusal (upstream's
    statuses: a decline is a failure here), around the transaction."""

    type = ConstantField("transaction-authorization-increment")

    @extend_schema_field(serializers.ChoiceField(choices=["succeeded", "failed"]))
    def get_status(self, outcome: ActionResult) -> str:
        return "succeeded" if outcome.result is None or outcome.result.approved else "failed"
