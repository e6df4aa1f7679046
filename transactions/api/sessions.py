"""`POST /transactions/{id}/session`, refused by name: no processor of this server opens a session with the buyer's
device for a payment (a client SDK's session; docs/card-details.md, "Processor sessions"). The transaction is found
first, so a missing one is still a 404; then a 400 names the operation, as `POST /payment-services/{id}/sessions`
does."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from payments.errors import DomainError
from payments.rest.fields import StrictSerializer, validated
from payments.rest.permissions import request_merchant_account
from transactions.models import Transaction
from transactions.selectors import transaction_get


class TransactionSessionRefused(DomainError):
    """Upstream's transaction session: only a processor could give one, and none here does."""


class TransactionSessionInput(StrictSerializer):
    """Body of `POST /transactions/{id}/session` (upstream's `UpdateTransactionSessionRequest`)."""

    payload = serializers.DictField(required=False, allow_null=True)


class TransactionSessionViewSet(viewsets.GenericViewSet):
    """`POST /transactions/{transaction_id}/session`."""

    queryset = Transaction.objects.none()  # names the model for the schema
    scope_resource = "transactions"
    query_parameters = frozenset({"token"})

    @extend_schema(request=TransactionSessionInput, responses={200: {"type": "object"}})
    def create(self, request: Request, transaction_id: str) -> Response:
        """Get or update a transaction's session

        Not supported: no processor of this server opens a client session for a payment, so this is always a 400
        naming the operation (once the transaction is found and the body checked). Needs `transactions.write`.
        """
        transaction_get(merchant_account=request_merchant_account(request), id=transaction_id)
        validated(TransactionSessionInput(data={} if request.data is None else request.data))
        raise TransactionSessionRefused(
            "POST /transactions/{transaction_id}/session is not supported: no processor of this server opens a client"
            " session for a payment."
        )
