"""HTTP for a stored method's network tokens and the account updater (`paymentmethods.network_tokens`): the list
answers the tokens this server holds (none), every other operation is refused by name once its method is found."""

from __future__ import annotations

from typing import Any, NoReturn

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import buyer_access
from paymentmethods.models import PaymentMethod
from paymentmethods.network_tokens import network_token_service_require
from paymentmethods.selectors import payment_method_get
from payments.rest.outputs import ConstantField, OutputSerializer
from payments.rest.permissions import request_merchant_account, request_principal

NETWORK_TOKEN_ROUTE = "/payment-methods/{payment_method_id}/network-tokens/{network_token_id}"  # noqa: S105 - a path, not a secret
NETWORK_TOKEN_ID = OpenApiParameter(
    "network_token_id", str, OpenApiParameter.PATH, description="A network token's id (this server holds none)."
)
# What a refused operation may be sent: upstream's bodies, read only so that malformed JSON is refused as such.
ANY_BODY = {"application/json": {"type": "object"}}


class NetworkTokenOutput(OutputSerializer):
    """Upstream's `NetworkToken` (documented for the list's items; this server holds none)."""

    type = ConstantField("network-token")
    id = serializers.UUIDField()
    expiration_date = serializers.CharField()
    payment_method_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=["active", "inactive", "suspended", "deleted"])
    token = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class NetworkTokensOutput(OutputSerializer):
    """Upstream's `NetworkTokens`: every token of the method at once."""

    items = NetworkTokenOutput(many=True)


class NetworkTokenViewSet(viewsets.ViewSet):
    """`/payment-methods/{payment_method_id}/network-tokens`."""

    scope_resource = "payment-methods"
    # As upstream: a cryptogram is asked with the read scope.
    action_scopes = {"cryptogram": ("payment-methods.read",)}

    def _method(self, request: Request, payment_method_id: str) -> PaymentMethod:
        """The stored method named, as every `/payment-methods/{id}` operation finds it (an embed token: its pinned
        buyer's only)."""
        access = buyer_access(request_principal(request), resource="payment-methods")
        return payment_method_get(
            merchant_account=request_merchant_account(request), id=payment_method_id, access=access
        )

    def _refuse(self, request: Request, payment_method_id: str, operation: str) -> NoReturn:
        request.data  # noqa: B018 - a malformed body is refused as such first, as on every operation that takes one
        self._method(request, payment_method_id)
        network_token_service_require(operation=operation)

    @extend_schema(responses={200: NetworkTokensOutput})
    def list(self, request: Request, payment_method_id: str) -> Response:
        """List network tokens

        The network tokens this server holds for a stored payment method: none, as no network token service is
        configured. A method that does not exist (or is another account's) is a 404."""
        self._method(request, payment_method_id)
        return Response(NetworkTokensOutput({"items": []}).data)

    @extend_schema(request=ANY_BODY, responses={201: NetworkTokenOutput})
    def create(self, request: Request, payment_method_id: str) -> NoReturn:
        """Provision a network token

        Not supported: no network token service is configured, so this is a 400 naming it (a method that does not
        exist is a 404)."""
        self._refuse(request, payment_method_id, "POST /payment-methods/{payment_method_id}/network-tokens")

    @extend_schema(parameters=[NETWORK_TOKEN_ID], responses={204: None})
    def destroy(self, request: Request, payment_method_id: str, network_token_id: str) -> NoReturn:
        """Delete a network token

        Not supported: no network token service is configured, so this is a 400 naming it (a method that does not
        exist is a 404)."""
        self._refuse(request, payment_method_id, f"DELETE {NETWORK_TOKEN_ROUTE}")

    @extend_schema(parameters=[NETWORK_TOKEN_ID], request=None, responses={200: NetworkTokenOutput})
    def suspend(self, request: Request, payment_method_id: str, network_token_id: str) -> NoReturn:
        """Suspend a network token

        Not supported: no network token service is configured, so this is a 400 naming it (a method that does not
        exist is a 404)."""
        self._refuse(request, payment_method_id, f"POST {NETWORK_TOKEN_ROUTE}/suspend")

    @extend_schema(parameters=[NETWORK_TOKEN_ID], request=None, responses={200: NetworkTokenOutput})
    def resume(self, request: Request, payment_method_id: str, network_token_id: str) -> NoReturn:
        """Resume a network token

        Not supported: no network token service is configured, so this is a 400 naming it (a method that does not
        exist is a 404)."""
        self._refuse(request, payment_method_id, f"POST {NETWORK_TOKEN_ROUTE}/resume")

    @extend_schema(parameters=[NETWORK_TOKEN_ID], request=ANY_BODY, responses={201: {"type": "object"}})
    def cryptogram(self, request: Request, payment_method_id: str, network_token_id: str) -> NoReturn:
        """Create a network token cryptogram

        Not supported: no network token service is configured, so this is a 400 naming it (a method that does not
        exist is a 404)."""
        self._refuse(request, payment_method_id, f"POST {NETWORK_TOKEN_ROUTE}/cryptogram")


class AccountUpdaterJobViewSet(viewsets.ViewSet):
    """`/account-updater/jobs`."""

    scope_resource = "payment-methods"

    @extend_schema(request=ANY_BODY, responses={201: {"type": "object"}})
    def create(self, request: Request, *args: Any) -> NoReturn:
        """Create an account updater job

        Not supported: the card networks' account updater is reached through a network token service, and none is
        configured, so this is always a 400 naming it."""
        request.data  # noqa: B018 - a malformed body is refused as such first, as on every operation that takes one
        network_token_service_require(operation="POST /account-updater/jobs")
