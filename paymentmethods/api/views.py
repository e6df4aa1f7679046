"""HTTP for stored payment methods: validate, call one service or selector, render."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import BUYER_CLAIMS, BuyerAccess, buyer_access
from paymentmethods.api.serializers import (
    BuyerPaymentMethodsQuery,
    PaymentMethodCreateInput,
    PaymentMethodOutput,
    PaymentMethodSummariesOutput,
    PaymentMethodUpdateInput,
    payment_method_create_input,
)
from paymentmethods.models import PaymentMethod, PaymentMethodStatus
from paymentmethods.selectors import payment_method_get, payment_method_list, payment_method_list_for_buyer
from paymentmethods.services import CardToStore, payment_method_create, payment_method_delete, payment_method_update
from payments.ratelimits.throttles import EmbedTokenThrottle, RateLimitedMixin
from payments.rest.envelope import QueryValidationError
from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account, request_principal
from payments.rest.query import query_values


def _access(request: Request) -> BuyerAccess:
    """Which buyer's methods the request may touch (`buyers.access`): an embed token, its pinned buyer's only, read
    scope or not; only `payment-methods.write` lifts it."""
    return buyer_access(request_principal(request), resource="payment-methods")


class PaymentMethodFilter(django_filters.FilterSet):
    buyer_id = django_filters.UUIDFilter(field_name="buyer_id")
    buyer_external_identifier = django_filters.CharFilter(field_name="buyer__external_identifier", max_length=200)
    status = django_filters.MultipleChoiceFilter(
        field_name="status", choices=PaymentMethodStatus.choices, distinct=False
    )
    external_identifier = django_filters.CharFilter(field_name="external_identifier", max_length=200)


class PaymentMethodViewSet(
    RateLimitedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """`/payment-methods`: a buyer's stored cards."""

    queryset = PaymentMethod.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "payment-methods"
    # As upstream, the buyer's own browser may remove one of its cards (only its pinned buyer's).
    embed_actions = ("destroy",)
    rate_limits = {"destroy": (EmbedTokenThrottle,)}  # per embed token, like every embed call
    serializer_class = PaymentMethodOutput
    filterset_class = PaymentMethodFilter
    lookup_url_kwarg = "payment_method_id"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self) -> QuerySet[PaymentMethod]:
        return payment_method_list(
            merchant_account=request_merchant_account(self.request), access=_access(self.request)
        )

    def get_object(self) -> PaymentMethod:
        return payment_method_get(
            merchant_account=request_merchant_account(self.request),
            id=self.kwargs["payment_method_id"],
            access=_access(self.request),
        )

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """List stored payment methods

        The account's stored payment methods, newest first, filtered by buyer, status or external
        identifier. Card numbers are never shown: `label` is the last 4 digits and `details.bin` the first 6."""
        return super().list(request, *args, **kwargs)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Get a stored payment method

        One stored card of the merchant account, masked. Another merchant account's method answers 404, like a
        missing one."""
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(request=PaymentMethodCreateInput, responses={201: PaymentMethodOutput})
    def create(self, request: Request) -> Response:
        """Store a payment method

        Keeps a card for a buyer (named by `buyer_id` or `buyer_external_identifier`), sent as `method: card`
        with its number and expiry date, or as `method: checkout-session` to keep the card a checkout session holds.
        A security code may be sent and is checked, but is never stored. Storing a card the buyer already has answers
        201 with that same method (same `id`), its expiry date and external identifier brought up to date.

        404: The checkout session named by `id` does not exist, has expired or belongs to another merchant account.
        """
        data = validated(payment_method_create_input(request.data))
        from_session = data["method"] == "checkout-session"
        method = payment_method_create(
            merchant_account=request_merchant_account(request),
            buyer_id=data.get("buyer_id"),
            buyer_external_identifier=data.get("buyer_external_identifier"),
            card=None if from_session else CardToStore(data["number"], *_month_year(data["expiration_date"])),
            checkout_session_id=data["id"] if from_session else None,
            external_identifier=data.get("external_identifier"),
            access=_access(request),
        )
        return Response(PaymentMethodOutput(method).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=PaymentMethodUpdateInput, responses={200: PaymentMethodOutput})
    def update(self, request: Request, payment_method_id: str | None = None) -> Response:
        """Update a stored payment method

        Updates a stored card: a new `expiration_date` when the issuer renewed it, and the scheme transaction id
        and transaction link id kept for merchant-initiated payments. Fields left out keep their value."""
        serializer = PaymentMethodUpdateInput(data=request.data)
        changes = serializer.to_changes(validated(serializer))
        method = payment_method_update(method=self.get_object(), **changes)
        return Response(PaymentMethodOutput(method).data)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Delete a stored payment method

        Deletes the method and its card data, at once. Payments made with it keep their masked copy
        of the card; paying with its id afterwards answers 404. An embed token may delete only a card of the buyer
        it is pinned to, and its calls are rate limited per token."""
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance: PaymentMethod) -> None:
        payment_method_delete(method=instance)


def _month_year(expiry: Any) -> tuple[int, int]:
    return expiry.month, expiry.year


class BuyerPaymentMethodViewSet(RateLimitedMixin, viewsets.GenericViewSet):
    """`GET /buyers/payment-methods`."""

    queryset = PaymentMethod.objects.none()  # names the model for the schema
    scope_resource = "payment-methods"
    embed_actions = ("list",)
    # The drop-in lists its buyer's saved cards from the browser: per embed token, like every embed call.
    rate_limits = {"list": (EmbedTokenThrottle,)}
    pagination_class = None
    filterset_class = None
    query_parameters = frozenset(BuyerPaymentMethodsQuery().fields)

    @extend_schema(parameters=[BuyerPaymentMethodsQuery], responses={200: PaymentMethodSummariesOutput})
    def list(self, request: Request) -> Response:
        """List a buyer's stored payment methods

        One buyer's stored payment methods (by `buyer_id` or `buyer_external_identifier`), newest first or
        sorted by use, unpaginated. An embed token sees only the buyer it is pinned to, and needs no buyer
        parameter, and its calls are rate limited per token. A buyer that does not exist has no methods."""
        query = BuyerPaymentMethodsQuery(data=query_values(request))
        if not query.is_valid():
            raise QueryValidationError(query.errors)
        # Every card here is usable in any country and currency: those two filters keep them all.
        params = {name: value for name, value in query.validated_data.items() if name not in ("country", "currency")}
        access = _access(request)
        # A confined token lists its pinned buyer's without naming one; anyone else names the buyer.
        if not access.restricted and not any(params.get(name) for name in BUYER_CLAIMS):
            raise QueryValidationError({"buyer_id": ["Give buyer_id or buyer_external_identifier."]})
        methods = payment_method_list_for_buyer(
            merchant_account=request_merchant_account(request), access=access, **params
        )
        return Response(PaymentMethodSummariesOutput({"items": methods}).data)
