"""HTTP for payouts: validate, call one service or selector, render."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from payments.rest.fields import validated_request
from payments.rest.idempotency import idempotency_reserved_id, idempotency_resumed, idempotent
from payments.rest.permissions import request_merchant_account
from payouts.api.filters import PayoutFilter
from payouts.api.serializers import PayoutCreateInput, PayoutOutput
from payouts.models import Payout
from payouts.selectors import payout_get, payout_list
from payouts.services import payout_create

IDEMPOTENCY_KEY = OpenApiParameter("idempotency-key", str, OpenApiParameter.HEADER, required=False)


class PayoutViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """`/payouts`: money sent to cards (docs/payouts.md)."""

    queryset = Payout.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "payouts"
    serializer_class = PayoutOutput
    filterset_class = PayoutFilter
    lookup_url_kwarg = "payout_id"
    http_method_names = ["get", "post"]

    def get_queryset(self) -> QuerySet[Payout]:
        return payout_list(merchant_account=request_merchant_account(self.request))

    def get_object(self) -> Payout:
        return payout_get(merchant_account=request_merchant_account(self.request), id=self.kwargs["payout_id"])

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """List payouts

        The merchant account's payouts, newest first, a page at a time, narrowed by creation and update times,
        external identifier, the processor's payout id and status. Cards are shown masked: `payment_method.label` is
        the last 4 digits."""
        return super().list(request, *args, **kwargs)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Get a payout

        One payout of the merchant account: its status, the card it went to (masked), the payment service that paid
        it out and the processor's id of it. Another merchant account's payout answers 404, like a missing one."""
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(request=PayoutCreateInput, responses={201: PayoutOutput}, parameters=[IDEMPOTENCY_KEY])
    @idempotent
    def create(self, request: Request) -> Response:
        """Create a payout

        Sends `amount` minor units in `currency` to a card: a stored payment method (`method: id`) or a card given for
        this payout only (`method: card`), through `payment_service_id`, or when it is left out the first payment
        service of the account that can pay out. A processor's refusal is not an error: it answers 201 with status
        `declined`; a payout whose processor did not answer is `pending` until the recovery job settles it. Send an
        `Idempotency-Key` to retry safely: the same payout is answered, never a second one.

        400: Over the account's payout limit, or the payment service cannot pay out to cards (refused by name), or
        does not take the currency.

        404: The stored payment method does not exist (or belongs to another merchant account or buyer).
        """
        payout = payout_create(
            merchant_account=request_merchant_account(request),
            request=validated_request(PayoutCreateInput(data=request.data)),
            id=idempotency_reserved_id(request),
            resumed=idempotency_resumed(request),
        )
        return Response(PayoutOutput(payout).data, status=status.HTTP_201_CREATED)
