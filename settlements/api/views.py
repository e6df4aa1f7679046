"""`/transactions/{id}/settlements`, `/refund-settlements`, `/chargebacks`, `/chargeback-reversals`: what the
processors' settlement records say about one transaction (docs/reconciliation.md)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import buyer_access
from payments.errors import NotFound
from payments.rest.outputs import OutputSerializer
from payments.rest.permissions import request_merchant_account, request_principal
from settlements.api import serializers as out
from settlements.models import EntryKind, LedgerEntry
from settlements.selectors import transaction_ledger_entries, transaction_ledger_entry
from transactions.models import Transaction
from transactions.selectors import transaction_get


def _transaction(request: Request, transaction_id: str) -> Transaction:
    """The account's transaction; a token confined to one buyer sees that buyer's only, as the transaction itself."""
    txn = transaction_get(merchant_account=request_merchant_account(request), id=transaction_id)
    if not buyer_access(request_principal(request), resource="transactions").owns(txn.buyer):
        raise NotFound("The transaction could not be found.")
    return txn


class _LedgerViewSet(viewsets.GenericViewSet):
    queryset = LedgerEntry.objects.none()  # names the model for the schema; requests use the selectors
    scope_resource = "transactions"
    # A transaction's records are few (one per settlement, refund and chargeback): answered whole, as upstream.
    pagination_class = None
    http_method_names = ["get"]
    kind: str
    output: type[OutputSerializer]
    page: type[OutputSerializer]

    def _entries(self, request: Request, transaction_id: str):
        entries = transaction_ledger_entries(txn=_transaction(request, transaction_id), kind=self.kind)
        return entries.filter(refund__isnull=False) if self.kind == EntryKind.REFUND_SETTLEMENT else entries

    def _list(self, request: Request, transaction_id: str) -> Response:
        return Response(self.page({"items": list(self._entries(request, transaction_id))}).data)

    def _one(self, request: Request, transaction_id: str, settlement_id: str) -> Response:
        entry = transaction_ledger_entry(txn=_transaction(request, transaction_id), kind=self.kind, id=settlement_id)
        if self.kind == EntryKind.REFUND_SETTLEMENT and entry.refund_id is None:
            raise NotFound("The settlement record could not be found.")
        return Response(self.output(entry).data)


class SettlementViewSet(_LedgerViewSet):
    kind, output, page = EntryKind.SETTLEMENT, out.SettlementOutput, out.SettlementsOutput

    @extend_schema(operation_id="list_transaction_settlements", responses={200: out.SettlementsOutput})
    def list(self, request: Request, transaction_id: str) -> Response:
        """List a transaction's settlements

        What the processor paid out for the transaction, each with its fees, as its settlement records say.
        """
        return self._list(request, transaction_id)

    @extend_schema(operation_id="get_transaction_settlement", responses={200: out.SettlementOutput})
    def retrieve(self, request: Request, transaction_id: str, settlement_id: str) -> Response:
        """Get a transaction's settlement

        One settlement of the transaction: the amount, the processor's commission and its parts, when it was posted.
        """
        return self._one(request, transaction_id, settlement_id)


class RefundSettlementViewSet(_LedgerViewSet):
    kind, output, page = EntryKind.REFUND_SETTLEMENT, out.RefundSettlementOutput, out.RefundSettlementsOutput

    @extend_schema(operation_id="list_transaction_refund_settlements", responses={200: out.RefundSettlementsOutput})
    def list(self, request: Request, transaction_id: str) -> Response:
        """List a transaction's refund settlements

        What the processor took back for each refund of the transaction, as its settlement records say.
        """
        return self._list(request, transaction_id)

    @extend_schema(operation_id="get_transaction_refund_settlement", responses={200: out.RefundSettlementOutput})
    def retrieve(self, request: Request, transaction_id: str, settlement_id: str) -> Response:
        """Get a transaction's refund settlement

        One refund settlement of the transaction, with the refund it was for.
        """
        return self._one(request, transaction_id, settlement_id)


class ChargebackViewSet(_LedgerViewSet):
    kind, output, page = EntryKind.CHARGEBACK, out.ChargebackOutput, out.ChargebacksOutput

    @extend_schema(operation_id="list_transaction_chargebacks", responses={200: out.ChargebacksOutput})
    def list(self, request: Request, transaction_id: str) -> Response:
        """List a transaction's chargebacks

        The chargebacks the processor's settlement records debited for the transaction.
        """
        return self._list(request, transaction_id)


class ChargebackReversalViewSet(_LedgerViewSet):
    kind, output, page = EntryKind.CHARGEBACK_REVERSAL, out.ChargebackReversalOutput, out.ChargebackReversalsOutput

    @extend_schema(operation_id="list_transaction_chargeback_reversals", responses={200: out.ChargebackReversalsOutput})
    def list(self, request: Request, transaction_id: str) -> Response:
        """List a transaction's chargeback reversals

        The chargebacks the processor's settlement records credited back for the transaction.
        """
        return self._list(request, transaction_id)
