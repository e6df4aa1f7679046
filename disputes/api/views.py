"""`/transactions/{id}/disputes`: what the processors told of a transaction's disputes (an extension: upstream has no
dispute resource; docs/disputes.md, docs/api-contracts.md)."""

from __future__ import annotations

from django.db.models import Prefetch, prefetch_related_objects
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import buyer_access
from disputes.api.serializers import DisputesOutput
from disputes.models import Dispute, DisputeEvidenceFile
from payments.errors import NotFound
from payments.rest.permissions import request_merchant_account, request_principal
from transactions.disputes import transaction_taken_back
from transactions.related import DISPUTES
from transactions.selectors import transaction_get

DOCUMENTS = DisputeEvidenceFile.objects.defer("content")


class DisputeViewSet(viewsets.GenericViewSet):
    queryset = Dispute.objects.none()  # names the model for the schema; requests read the transaction's own
    # Their own scope: disputes say why a buyer challenged a payment, which a token that reads payments may not need.
    scope_resource = "disputes"
    # A transaction's disputes are few (one per dispute the bank opened): answered whole.
    pagination_class = None
    http_method_names = ["get"]

    @extend_schema(operation_id="list_transaction_disputes", responses={200: DisputesOutput})
    def list(self, request: Request, transaction_id: str) -> Response:
        """List a transaction's disputes

        The disputes the processor told of for the transaction, newest first: each one's state, reason, amount
        and the date its answer is due; and what those decided for the buyer took back of the payment. Needs the
        `disputes.read` scope. An extension of this server.
        """
        txn = transaction_get(merchant_account=request_merchant_account(request), id=transaction_id)
        if not buyer_access(request_principal(request), resource="transactions").owns(txn.buyer):
            raise NotFound("The transaction could not be found.")
        # Read once, for the list and what it took back; each one's answer and its documents (not their bytes).
        prefetch_related_objects([txn], DISPUTES, Prefetch(f"{DISPUTES}__answers__files", DOCUMENTS))
        disputes = sorted(txn.disputes.all(), key=lambda dispute: (dispute.created_at, dispute.pk), reverse=True)
        return Response(DisputesOutput({"items": disputes, "taken_back_amount": transaction_taken_back(txn)}).data)
