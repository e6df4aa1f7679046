"""Scenarios of a transaction's ledger records: settlements, refund settlements, chargebacks and reversals."""

from __future__ import annotations

import uuid

from settlements.models import EntryKind
from settlements.tests.factories import LedgerEntryFactory
from tests.conformance.world import Scenario, World
from transactions.tests.factories import RefundFactory


def _entry(w: World, kind: str = EntryKind.SETTLEMENT, **fields):
    return LedgerEntryFactory(transaction__merchant_account=w.account, kind=kind, **fields)


def _refund_settlement(w: World):
    refund = RefundFactory(transaction__merchant_account=w.account)
    return _entry(w, EntryKind.REFUND_SETTLEMENT, transaction=refund.transaction, refund=refund, net_amount=-100)


def _path(entry, plural: str, one: bool = False) -> str:
    return f"/transactions/{entry.transaction_id}/{plural}" + (f"/{entry.pk}" if one else "")


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    (
        "/transactions/{transaction_id}/settlements",
        "GET",
        "list",
        lambda w: w.client.get(_path(_entry(w, exchange_rate="1.0842"), "settlements")),
    ),
    (
        "/transactions/{transaction_id}/settlements/{settlement_id}",
        "GET",
        "one",
        lambda w: w.client.get(_path(_entry(w, interchange=None, markup=None, scheme_fee=None), "settlements", True)),
    ),
    (
        "/transactions/{transaction_id}/settlements/{settlement_id}",
        "GET",
        "missing",
        lambda w: w.client.get(f"/transactions/{_entry(w).transaction_id}/settlements/{uuid.uuid4()}"),
    ),
    (
        "/transactions/{transaction_id}/refund-settlements",
        "GET",
        "list",
        lambda w: w.client.get(_path(_refund_settlement(w), "refund-settlements")),
    ),
    (
        "/transactions/{transaction_id}/refund-settlements/{settlement_id}",
        "GET",
        "one",
        lambda w: w.client.get(_path(_refund_settlement(w), "refund-settlements", True)),
    ),
    (
        "/transactions/{transaction_id}/chargebacks",
        "GET",
        "list",
        lambda w: w.client.get(_path(_entry(w, EntryKind.CHARGEBACK, net_amount=-10000), "chargebacks")),
    ),
    (
        "/transactions/{transaction_id}/chargeback-reversals",
        "GET",
        "list",
        lambda w: w.client.get(_path(_entry(w, EntryKind.CHARGEBACK_REVERSAL), "chargeback-reversals")),
    ),
]
