"""`/payment-methods/{payment_method_id}/payment-service-tokens`: a stored card kept at a payment service's processor
(`paymentservices.tokens`; docs/stored-cards-at-processors.md)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import buyer_access
from paymentmethods.models import PaymentMethod
from paymentmethods.selectors import payment_method_get
from payments.rest.envelope import QueryValidationError
from payments.rest.fields import StrictCharField, StrictSerializer, validated
from payments.rest.outputs import ConstantField, OutputSerializer
from payments.rest.permissions import request_merchant_account, request_principal
from payments.rest.query import query_values
from payments.shapes.cards import SecurityCodeField
from paymentservices.models import PaymentServiceToken
from paymentservices.tokens import (
    payment_service_token_create,
    payment_service_token_delete,
    payment_service_token_get,
    payment_service_token_list,
)

SERVICE_FILTER = OpenApiParameter(
    "payment_service_id", OpenApiTypes.UUID, OpenApiParameter.QUERY, required=False, description="Only this one."
)
TOKEN_ID = OpenApiParameter("payment_service_token_id", str, OpenApiParameter.PATH, description="The token's id.")


class PaymentServiceTokenCreateInput(StrictSerializer):
    """Upstream's `PaymentServiceTokenCreate`."""

    payment_service_id = serializers.UUIDField()
    # Where a buyer would come back after approving the token at the processor: no processor here asks a buyer to
    # approve one, so it is taken as upstream requires it and never used.
    redirect_url = StrictCharField(max_length=2000)
    security_code = SecurityCodeField(required=False, allow_null=True)


class PaymentServiceTokensQuery(serializers.Serializer):
    payment_service_id = serializers.UUIDField(required=False)


class PaymentServiceTokenOutput(OutputSerializer):
    """Upstream's `PaymentServiceToken`: `succeeded` while the token works, `failed` when the processor refused the
    card or revoked the token; `token` is the processor's id of the card while it works."""

    type = ConstantField("payment-service-token")
    id = serializers.UUIDField()
    approval_url = serializers.SerializerMethodField()
    payment_method_id = serializers.UUIDField()
    payment_service_id = serializers.UUIDField()
    status = serializers.SerializerMethodField()
    token = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    def get_approval_url(self, token: PaymentServiceToken) -> str | None:
        return None  # no processor here asks the buyer to approve a token

    def get_status(self, token: PaymentServiceToken) -> str:
        return PaymentServiceToken.Status.SUCCEEDED if token.usable else PaymentServiceToken.Status.FAILED

    def get_token(self, token: PaymentServiceToken) -> str | None:
        return token.token if token.usable else None


class PaymentServiceTokensOutput(OutputSerializer):
    """Upstream's `PaymentServiceTokens`: every token of the method at once."""

    items = PaymentServiceTokenOutput(many=True)


class PaymentServiceTokenViewSet(viewsets.GenericViewSet):
    """`/payment-methods/{payment_method_id}/payment-service-tokens`."""

    queryset = PaymentServiceToken.objects.none()  # names the model for the schema and the audit log
    scope_resource = "payment-methods"
    query_parameters = ("payment_service_id",)
    pagination_class = None  # upstream answers every token at once

    def _method(self, request: Request, payment_method_id: str) -> PaymentMethod:
        """The stored method named, as every `/payment-methods/{id}` operation finds it."""
        access = buyer_access(request_principal(request), resource="payment-methods")
        return payment_method_get(
            merchant_account=request_merchant_account(request), id=payment_method_id, access=access
        )

    @extend_schema(
        operation_id="list_payment_method_payment_service_tokens",
        parameters=[SERVICE_FILTER],
        responses={200: PaymentServiceTokensOutput},
    )
    def list(self, request: Request, payment_method_id: str) -> Response:
        """List payment service tokens

        The tokens the stored method's card has at processors, newest first, with their state (of one service with
        `payment_service_id`). A method that does not exist (or is another account's) is a 404."""
        query = PaymentServiceTokensQuery(data=query_values(request))
        if not query.is_valid():
            raise QueryValidationError(query.errors)
        method = self._method(request, payment_method_id)
        service_id = query.validated_data.get("payment_service_id")
        tokens = payment_service_token_list(method=method, payment_service_id=service_id)
        return Response(PaymentServiceTokensOutput({"items": tokens}).data)

    @extend_schema(
        operation_id="create_payment_method_payment_service_token",
        request=PaymentServiceTokenCreateInput,
        responses={201: PaymentServiceTokenOutput},
    )
    def create(self, request: Request, payment_method_id: str) -> Response:
        """Create payment service token

        Keeps the stored card at the payment service's processor: `succeeded` with its token, or `failed` when the
        processor would not keep the card or gave no answer. Later payments of the card to that service send the token
        instead of the number.

        400: The payment service is not the account's, or its processor keeps no stored cards.
        409: The method already has a working token at that service."""
        data: dict[str, Any] = validated(PaymentServiceTokenCreateInput(data=request.data))
        method = self._method(request, payment_method_id)
        token = payment_service_token_create(
            method=method, payment_service_id=data["payment_service_id"], security_code=data.get("security_code")
        )
        return Response(PaymentServiceTokenOutput(token).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="delete_payment_method_payment_service_token", parameters=[TOKEN_ID], responses={204: None}
    )
    def destroy(self, request: Request, payment_method_id: str, payment_service_token_id: str) -> Response:
        """Delete payment service token

        Drops the token here (payments send the card again) and asks its processor to drop it too."""
        method = self._method(request, payment_method_id)
        payment_service_token_delete(token=payment_service_token_get(method=method, id=payment_service_token_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
