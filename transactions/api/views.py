"""HTTP for transactions and refunds: validate, call one service or selector, render."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from payments.errors import NotFound
from payments.ratelimits.throttles import EmbedTokenThrottle, RateLimitedMixin
from payments.rest.fields import validated, validated_request
from payments.rest.idempotency import idempotency_reserved_id, idempotency_resumed, idempotent
from payments.rest.pagination import KeysetCursorPagination
from payments.rest.permissions import request_merchant_account, request_principal
from transactions.api.filters import TransactionFilter
from transactions.api.pinning import (
    embed_may_read,
    pinned_checkout_values,
    pinned_session,
    require_pinned_claims,
    transaction_access,
)
from transactions.api.serializers.actions import (
    AuthorizationIncrementInput,
    RefundAllInput,
    RefundCreateInput,
    TransactionCaptureInput,
    TransactionUpdateInput,
)
from transactions.api.serializers.create import TransactionCreateInput
from transactions.api.serializers.history import TransactionActionsOutput, TransactionEventOutput
from transactions.api.serializers.outputs import (
    CaptureOutput,
    CapturesOutput,
    RefundOutput,
    RefundsOutput,
    TransactionAuthorizationIncrementOutput,
    TransactionCancelOutput,
    TransactionCaptureOutput,
    TransactionOutput,
    TransactionSummaryOutput,
    TransactionVoidOutput,
)
from transactions.api.serializers.payment_options import PaymentOptionsInput, PaymentOptionsOutput
from transactions.models import (
    MAX_CAPTURES_PER_TRANSACTION,
    MAX_REFUNDS_PER_TRANSACTION,
    Capture,
    Refund,
    Transaction,
    TransactionEvent,
    TransactionStatus,
)
from transactions.payment_options import payment_options_list
from transactions.pinned_orders import pinned_order
from transactions.selectors import (
    capture_get,
    capture_list,
    refund_get,
    refund_list,
    transaction_action_list,
    transaction_event_list,
    transaction_get,
    transaction_list,
)
from transactions.services.actions import transaction_cancel, transaction_capture, transaction_void
from transactions.services.create import transaction_create
from transactions.services.increments import transaction_increment_authorization
from transactions.services.recovery import transaction_sync_or_as_is
from transactions.services.refunds import refund_all, refund_create
from transactions.services.state import ActionResult, Actor, capture_pending
from transactions.services.update import transaction_update

PREFER = OpenApiParameter("prefer", str, OpenApiParameter.HEADER, required=False, many=True)
IDEMPOTENCY_KEY = OpenApiParameter("idempotency-key", str, OpenApiParameter.HEADER, required=False)


def _actor(request: Request) -> Actor:
    return Actor.api_key(request_principal(request).kid)


def _buyer_ip_address(request: Request) -> str | None:
    """The buyer's address when the buyer's own browser calls (an embed token); a merchant's server is not the buyer."""
    return request.META.get("REMOTE_ADDR") or None if request_principal(request).is_embed else None


def _transaction(request: Request, transaction_id: str) -> Transaction:
    """The account's transaction the URL names; a token pinned to a buyer sees that buyer's only (`buyers.access`),
    an embed token only what its own checkout made (`embed_may_read`); any other answers as a missing one."""
    txn = transaction_get(merchant_account=request_merchant_account(request), id=transaction_id)
    principal = request_principal(request)
    access = transaction_access(principal)
    through_embed = access.confined and not principal.has_scope("transactions.read")
    visible = embed_may_read(principal, txn, access=access) if through_embed else access.owns(txn.buyer)
    if not visible:
        raise NotFound("The transaction could not be found.")
    return txn


def _prefers(request: Request, resource: str) -> bool:
    """`Prefer: resource=<name>`; the header may list several preferences, comma separated."""
    values = [part.strip() for part in request.headers.get("Prefer", "").split(",")]
    return f"resource={resource}" in values


def _resumed(request: Request, txn: Transaction, done: str, pending: str) -> ActionResult | None:
    """A retry resuming a capture or void whose process died: the processor's record of the first attempt decides
    (through a sync); the action runs again only if that attempt never reached it. Still `pending` after the sync:
    the processor could not be asked now, so the transaction is answered as it stands and the sweep settles it."""
    if not idempotency_resumed(request):
        return None
    txn = transaction_sync_or_as_is(txn=txn, actor=_actor(request), abandoned=True)
    if txn.status == pending:
        return ActionResult(txn, None, capture_pending(txn))
    return ActionResult(txn, None) if txn.status == done else None


def _transaction_or(wrapper: type[TransactionCaptureOutput | TransactionVoidOutput]) -> PolymorphicProxySerializer:
    """The answer of a capture or void: the transaction, or the action around it when `Prefer` asks for it."""
    return PolymorphicProxySerializer(
        component_name=f"TransactionOr{wrapper.__name__.removesuffix('Output')}",
        serializers=[TransactionOutput, wrapper],
        resource_type_field_name=None,
    )


class TransactionViewSet(RateLimitedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Transactions: payments by card, checkout session or stored gift cards, and what happens to them.

    list:
        List transactions
        The merchant account's transactions, newest first, a page at a time, each as a summary. Every filter of
        the query narrows the list (amounts, currencies, statuses, dates, buyer, payment method, gift cards...);
        repeat a parameter (`status=a&status=b`) to accept several values.

    retrieve:
        Get a transaction
        One transaction with its payment method, gift card redemptions, amounts captured and refunded, and the
        processor's answer. An embed token reads only a transaction its own checkout made (the amount and currency
        it pins, paid with the checkout session or by the buyer it pins): how a payment that waited for the buyer
        ended.
    """

    queryset = Transaction.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "transactions"
    # Reading one: how a payment that waited for the buyer (3-D Secure) ended, for the drop-in that made it.
    embed_actions = ("create", "retrieve")
    # As upstream: asking the processor changes nothing the caller asked for, so reading is enough.
    action_scopes = {"sync": ("transactions.read",)}
    # Per embed token (docs/rate-limits.md); server tokens are never limited.
    rate_limits = {"create": (EmbedTokenThrottle,), "retrieve": (EmbedTokenThrottle,)}
    serializer_class = TransactionOutput
    filterset_class = TransactionFilter
    lookup_url_kwarg = "transaction_id"
    http_method_names = ["get", "post", "put"]

    def get_queryset(self) -> QuerySet[Transaction]:
        access = transaction_access(request_principal(self.request))
        return access.confine(transaction_list(merchant_account=request_merchant_account(self.request)))

    def get_serializer_class(self) -> type[TransactionOutput | TransactionSummaryOutput]:
        # As upstream, lists show each transaction's summary; every other action the whole transaction.
        return TransactionSummaryOutput if self.action == "list" else TransactionOutput

    def get_object(self) -> Transaction:
        return _transaction(self.request, self.kwargs["transaction_id"])

    @extend_schema(request=TransactionCreateInput, responses={201: TransactionOutput}, parameters=[IDEMPOTENCY_KEY])
    @idempotent
    def create(self, request: Request) -> Response:
        """Create a transaction

        Authorizes (`intent: authorize`) or authorizes and captures (`intent: capture`) a payment of `amount`
        minor units in `currency`, with a card, a checkout session's card, a stored payment method, gift cards, or
        a card and gift cards together. A decline is not an error: it answers 201 with a declined status (see the
        test cards in docs/test-cards.md). Send an `Idempotency-Key` to retry safely.

        404: The checkout session, stored payment method or shipping details the body names do not exist (or belong
        to another merchant account).
        """
        context = {"ip_address": _buyer_ip_address(request), "server_base_url": request.build_absolute_uri("/")}
        transaction_request = validated_request(TransactionCreateInput(data=request.data, context=context))
        principal = request_principal(request)
        access = transaction_access(principal)
        require_pinned_claims(principal, transaction_request, access=access)
        transaction_request = pinned_session(principal, transaction_request)
        reserved_id, resumed = idempotency_reserved_id(request), idempotency_resumed(request)
        # A token pinned to an order kept above transactions (a payment link) pays it through that order's rules.
        order = pinned_order(principal.embed)
        if order is not None:
            txn = order.pay(request=transaction_request, id=reserved_id, resumed=resumed)
        else:
            txn = transaction_create(
                merchant_account=request_merchant_account(request),
                actor=_actor(request),
                request=transaction_request,
                id=reserved_id,
                resumed=resumed,
                access=access,
            )
        # The request makes the challenge page's absolute address when PUBLIC_BASE_URL is not set.
        return Response(TransactionOutput(txn, context={"request": request}).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=TransactionUpdateInput, responses={200: TransactionOutput})
    def update(self, request: Request, transaction_id=None) -> Response:
        """Update a transaction

        Replaces the transaction's `external_identifier`, `metadata` or `connection_options`, each as a whole;
        nothing about its money changes.
        """
        data = validated(TransactionUpdateInput(data=request.data))
        txn = transaction_update(txn=self.get_object(), actor=_actor(request), **data)
        return Response(TransactionOutput(txn).data)

    @extend_schema(
        request=TransactionCaptureInput,
        responses={200: _transaction_or(TransactionCaptureOutput)},
        parameters=[PREFER, IDEMPOTENCY_KEY],
    )
    @action(detail=True, methods=["post"])
    @idempotent
    def capture(self, request: Request, transaction_id=None) -> Response:
        """Capture a transaction

        Captures an authorized transaction, all of it or a partial `amount`. `Prefer: resource=transaction-capture`
        answers the capture with its status instead of the transaction.

        409: The transaction is not in a state that can be captured (not authorized, or already captured or voided).
        """
        data = validated(TransactionCaptureInput(data=request.data))
        txn = self.get_object()
        outcome = _resumed(
            request, txn, TransactionStatus.CAPTURE_SUCCEEDED, TransactionStatus.CAPTURE_PENDING
        ) or transaction_capture(txn=txn, actor=_actor(request), **data)
        if _prefers(request, "transaction-capture"):
            return Response(TransactionCaptureOutput(outcome).data)
        return Response(TransactionOutput(outcome.transaction).data)

    @extend_schema(
        request=None, responses={200: _transaction_or(TransactionVoidOutput)}, parameters=[PREFER, IDEMPOTENCY_KEY]
    )
    @action(detail=True, methods=["post"])
    @idempotent
    def void(self, request: Request, transaction_id=None) -> Response:
        """Void a transaction

        Releases an authorization that was not captured and returns the money of every gift card it redeemed.
        `Prefer: resource=transaction-void` answers the void with its status instead of the transaction.

        409: The transaction is not in a state that can be voided (not authorized, or already captured or voided).
        """
        txn = self.get_object()
        outcome = _resumed(
            request, txn, TransactionStatus.AUTHORIZATION_VOIDED, TransactionStatus.AUTHORIZATION_VOID_PENDING
        ) or transaction_void(txn=txn, actor=_actor(request))
        if _prefers(request, "transaction-void"):
            return Response(TransactionVoidOutput(outcome).data)
        return Response(TransactionOutput(outcome.transaction).data)

    @extend_schema(
        request=AuthorizationIncrementInput,
        responses={200: TransactionAuthorizationIncrementOutput},
        parameters=[IDEMPOTENCY_KEY],
    )
    @action(detail=True, methods=["post"], url_path="authorization/increment")
    @idempotent
    def increment_authorization(self, request: Request, transaction_id=None) -> Response:
        """Increment a transaction's authorization

        Raises an authorized (uncaptured) transaction's authorization, and its amount, by `amount`, where the
        processor holding it can (docs/transactions.md, "Incremental authorization"); a processor that cannot is a
        400 naming it. The answer says whether the processor agreed (`succeeded` or `failed`), around the
        transaction.

        409: The transaction is not authorized and uncaptured, or a capture, void or increment is in progress.
        """
        data = validated(AuthorizationIncrementInput(data=request.data))
        outcome = transaction_increment_authorization(txn=self.get_object(), actor=_actor(request), **data)
        return Response(TransactionAuthorizationIncrementOutput(outcome).data)

    @extend_schema(responses={200: TransactionActionsOutput})
    @action(detail=True, methods=["get"])
    def actions(self, request: Request, transaction_id=None) -> Response:
        """List a transaction's routing actions

        The routing rules that acted on the transaction. This server has no routing rules (every transaction goes
        to the one configured processor), so the list is always empty.
        """
        items = transaction_action_list(txn=self.get_object())
        return Response(TransactionActionsOutput({"items": items}).data)

    @extend_schema(request=None, responses={200: TransactionCancelOutput})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, transaction_id=None) -> Response:
        """Cancel a transaction

        Stops a transaction still waiting for its authorization and returns the money of its gift cards.

        409: The transaction is no longer waiting for its authorization.
        """
        txn = transaction_cancel(txn=self.get_object(), actor=_actor(request))
        return Response(TransactionCancelOutput(ActionResult(txn, None)).data)

    @extend_schema(request=None, responses={200: TransactionOutput})
    @action(detail=True, methods=["post"])
    def sync(self, request: Request, transaction_id=None) -> Response:
        """Sync a transaction with its processor

        Asks the processor what became of the transaction's pending operation and records its answer: a
        transaction left pending by a failure is resolved, and gift card money held for a card payment that never
        happened is returned. A transaction with nothing pending is answered as it is.
        """
        txn = transaction_sync_or_as_is(txn=self.get_object(), actor=_actor(request))
        return Response(TransactionOutput(txn).data)


class TransactionRefundViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """`/transactions/{id}/refunds[...]`.

    list:
        List a transaction's refunds
        Every refund of one transaction, newest first, in one answer (a transaction has at most 100).
    """

    queryset = Refund.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "transactions"
    # Upstream's list takes no cursor and no limit, and the SDK sends none: a page of 20 cut the list for its
    # users. A transaction's refunds are bounded (MAX_REFUNDS_PER_TRANSACTION), so they are answered whole.
    pagination_class = None
    # Upstream lets a gift card writer refund everything, gift cards included.
    action_scopes = {"all": ("transactions.write", "gift-cards.write")}
    serializer_class = RefundOutput
    http_method_names = ["get", "post"]

    def _transaction(self) -> Transaction:
        return _transaction(self.request, self.kwargs["transaction_id"])

    def get_queryset(self):
        return refund_list(txn=self._transaction())

    @extend_schema(responses={200: RefundsOutput})
    def list(self, request: Request, transaction_id=None) -> Response:
        refunds = list(self.get_queryset())
        return Response(RefundsOutput({"items": refunds, "limit": MAX_REFUNDS_PER_TRANSACTION}).data)

    @extend_schema(responses={200: RefundOutput})
    def retrieve(self, request: Request, transaction_id=None, refund_id=None) -> Response:
        """Get a transaction's refund

        One refund of the transaction: its amount, status, target (the card or a gift card) and reason.
        """
        refund = refund_get(merchant_account=request_merchant_account(request), id=refund_id, txn=self._transaction())
        return Response(RefundOutput(refund).data)

    @extend_schema(request=RefundCreateInput, responses={201: RefundOutput}, parameters=[IDEMPOTENCY_KEY])
    @idempotent
    def create(self, request: Request, transaction_id=None) -> Response:
        """Refund a transaction

        Refunds a captured transaction, all that is left or a partial `amount`, on the payment method or on one
        gift card (`target_type`, `target_id`).

        409: Nothing is left to refund on the target, or the transaction was never captured.
        """
        data = validated(RefundCreateInput(data=request.data))
        refund = refund_create(
            txn=self._transaction(),
            actor=_actor(request),
            id=idempotency_reserved_id(request),
            resumed=idempotency_resumed(request),
            **data,
        )
        return Response(RefundOutput(refund).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=RefundAllInput, responses={201: RefundsOutput}, parameters=[IDEMPOTENCY_KEY])
    @idempotent
    def all(self, request: Request, transaction_id=None) -> Response:
        """Refund everything on a transaction

        Refunds what is left on every instrument of the transaction, the payment method and each gift card, and
        answers the refunds made.

        409: Nothing is left to refund on this transaction.
        """
        data = validated(RefundAllInput(data=request.data if request.data is not None else {}))
        refunds = refund_all(
            txn=self._transaction(),
            actor=_actor(request),
            id=idempotency_reserved_id(request),
            resumed=idempotency_resumed(request),
            **data,
        )
        page = {"items": refunds, "limit": max(len(refunds), 1)}
        return Response(RefundsOutput(page).data, status=status.HTTP_201_CREATED)


class TransactionCaptureViewSet(viewsets.GenericViewSet):
    """`/transactions/{id}/captures[/{capture_id}]`: every capture of a transaction, as a record."""

    queryset = Capture.objects.none()  # names the model for the schema; requests use the selectors
    scope_resource = "transactions"
    # Like its refunds: upstream's list takes no cursor and no limit, and a transaction's captures are bounded
    # (MAX_CAPTURES_PER_TRANSACTION), so they are answered whole.
    pagination_class = None
    serializer_class = CaptureOutput

    def _transaction(self) -> Transaction:
        return _transaction(self.request, self.kwargs["transaction_id"])

    @extend_schema(responses={200: CapturesOutput})
    def list(self, request: Request, transaction_id=None) -> Response:
        """List a transaction's captures

        Every capture of one transaction, newest first, in one answer (a transaction has at most 100): each with
        its amount, status, whether it was the final one, and the processor's answer.
        """
        captures = list(capture_list(txn=self._transaction()))
        return Response(CapturesOutput({"items": captures, "limit": MAX_CAPTURES_PER_TRANSACTION}).data)

    @extend_schema(responses={200: CaptureOutput})
    def retrieve(self, request: Request, transaction_id=None, capture_id=None) -> Response:
        """Get a transaction's capture

        One capture of the transaction: its amount, status, whether it was the final one, and the processor's
        answer.
        """
        return Response(CaptureOutput(capture_get(txn=self._transaction(), id=capture_id)).data)


class TransactionEventPagination(KeysetCursorPagination):
    # Upstream pages a transaction's history 100 events at a time unless asked otherwise.
    default_limit = 100


class TransactionEventViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """`GET /transactions/{id}/events`: the transaction's history, newest first.

    list:
        List a transaction's events
        The transaction's history, newest first, 100 events a page by default: each authorization, capture,
        void, refund and gift card redemption, with what the processor answered.
    """

    queryset = TransactionEvent.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "transactions"
    serializer_class = TransactionEventOutput
    pagination_class = TransactionEventPagination

    def get_queryset(self):
        return transaction_event_list(txn=_transaction(self.request, self.kwargs["transaction_id"]))


class RefundViewSet(viewsets.GenericViewSet):
    """`GET /refunds/{refund_id}`."""

    queryset = Refund.objects.none()  # names the model for the schema
    scope_resource = "transactions"
    serializer_class = RefundOutput

    @extend_schema(responses={200: RefundOutput})
    def retrieve(self, request: Request, refund_id=None) -> Response:
        """Get a refund

        One refund of any transaction of the merchant account, by its id alone.
        """
        refund = refund_get(merchant_account=request_merchant_account(request), id=refund_id)
        _transaction(request, str(refund.transaction_id))  # an embed token: its pinned buyer's refunds only
        return Response(RefundOutput(refund).data)


class PaymentOptionsViewSet(RateLimitedMixin, viewsets.GenericViewSet):
    """`POST /payment-options`: a read, with a body."""

    scope_resource = "payment-options"
    action_scopes = {"create": ("payment-options.read", "embed")}
    rate_limits = {"create": (EmbedTokenThrottle,)}  # per embed token, like every embed call (docs/rate-limits.md)
    serializer_class = PaymentOptionsOutput

    @extend_schema(request=PaymentOptionsInput, responses={200: PaymentOptionsOutput})
    def create(self, request: Request) -> Response:
        """List the payment options of a checkout

        The ways a buyer can pay a checkout of this `amount` and `currency`, in the order to show them: a card
        (any amount, currency and country), PayPal where an active PayPal service takes the currency and country,
        and gift cards when the merchant's gift card program holds a card that could pay in that currency.
        `country` narrows PayPal; `locale` is validated; labels are in English. There are no checkout rules, so
        `metadata` and `cart_items` are refused unless null.

        Needs the `payment-options.read` or the `embed` scope. An embed token answers for the amount and
        currency it pins (used when the body leaves them out; a different value is a 403) and is rate limited.
        """
        data = validated(PaymentOptionsInput(data=request.data))
        checkout = pinned_checkout_values(request_principal(request), data)
        options = payment_options_list(
            merchant_account=request_merchant_account(request),
            amount=checkout.get("amount"),
            currency=checkout.get("currency"),
            country=data.get("country"),
        )
        return Response(PaymentOptionsOutput({"items": options}).data)
