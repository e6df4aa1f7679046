"""Demo transactions for `seed_demo`: a million card payments in bulk, each as the sandbox would have left it.

Each demo transaction's `external_identifier` is `demo-transaction-<n>`, so a rerun counts them and carries on
after the last one (batches go in whole and in order). A transaction is written as `transaction_create` leaves
a sandbox card payment: the sandbox's own answer for one of its test cards (docs/test-cards.md), the card
masked and fingerprinted (never stored in clear), the buyer as it was, and the two history events
(`transaction_created`, then the outcome). Rows go in through COPY on PostgreSQL, `bulk_create` elsewhere, with
distinct creation times spread over the last 90 days.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from buyers.demo import demo_buyers
from buyers.demo import external_identifier as buyer_identifier
from payments.accounts.models import MerchantAccount
from payments.connectors.base import Outcome
from payments.ops.demo import (
    BULK_LOAD_MIN_ROWS,
    DemoClock,
    DemoResult,
    DemoRun,
    bulk_load,
    copy_lines,
    copy_text,
    seeding_lock,
)
from payments.vault.cards import card_scheme
from payments.vault.crypto import fingerprint
from paymentservices.models import PaymentService
from paymentservices.processors.sandbox import TEST_CARDS
from transactions.models import Transaction, TransactionEvent, TransactionStatus

EXTERNAL_IDENTIFIER_PREFIX = "demo-transaction-"
HISTORY = timedelta(days=90)
# The sandbox's test cards, weighted as traffic is: mostly approvals, a few declines, the odd failure.
_CARD_MIX = (
    *["4111111111111111"] * 10,
    *["5555555555554444"] * 6,
    "378282246310005",
    "4000000000000002",
    "4000000000000002",
    "4000000000009995",
    "4000000000000101",
    "4000000000000069",
    "4000000000000119",
)
# (currency, amounts in minor units): mostly dollars, some euros and pounds, yen and dinars for their exponents.
_PRICES = (
    *[("USD", (499, 1299, 2500, 5999, 12000, 34900))] * 6,
    ("EUR", (899, 4500, 15000)),
    ("EUR", (1999, 7400)),
    ("GBP", (1250, 3999)),
    ("JPY", (1200, 5800, 24000)),
    ("KWD", (4500, 12250)),
)


def demo_transactions(merchant_account: MerchantAccount) -> QuerySet[Transaction]:
    return Transaction.objects.filter(
        merchant_account=merchant_account, external_identifier__startswith=EXTERNAL_IDENTIFIER_PREFIX
    )


@dataclass(frozen=True)
class _Card:
    """A test card as a transaction shows it, and the sandbox's answer for it."""

    scheme: str | None
    bin: str
    last4: str
    fingerprint: str
    outcome: Outcome
    error_code: str | None
    raw_response_code: str
    raw_response_description: str
    cvv_response_code: str


@cache
def _cards(fingerprint_key_marker: str) -> tuple[_Card, ...]:
    # Keyed by the fingerprint of a fixed value, so a changed key (tests) computes the cards again.
    cards = []
    for number in _CARD_MIX:
        answer = TEST_CARDS[number]
        cards.append(
            _Card(
                card_scheme(number),
                number[:6],
                number[-4:],
                fingerprint(number),
                answer.outcome,
                answer.error_code,
                answer.raw_response_code,
                answer.raw_response_description,
                answer.cvv_response_code or "match",
            )
        )
    return tuple(cards)


def _status(card: _Card, capture: bool) -> str:
    if card.outcome == Outcome.APPROVED:
        return TransactionStatus.CAPTURE_SUCCEEDED if capture else TransactionStatus.AUTHORIZATION_SUCCEEDED
    if card.outcome == Outcome.DECLINED:
        return TransactionStatus.AUTHORIZATION_DECLINED
    return TransactionStatus.AUTHORIZATION_FAILED


_BuyerRow = tuple[uuid.UUID, str, str | None, dict[str, Any] | None, str | None]


def _buyer_rows(merchant_account: MerchantAccount, numbers: list[int]) -> dict[str, _BuyerRow]:
    """The demo buyers these transactions are made for, by external identifier (one query)."""
    identifiers = [buyer_identifier(number) for number in numbers]
    rows = demo_buyers(merchant_account).filter(external_identifier__in=identifiers)
    fields = ("external_identifier", "id", "display_name", "billing_details", "account_number")
    return {row[0]: (row[1], row[0], row[2], row[3], row[4]) for row in rows.values_list(*fields)}


def _buyer_details(buyer: _BuyerRow) -> dict[str, Any]:
    """The buyer as `transaction_create` copies it onto the transaction."""
    pk, external_identifier, display_name, billing_details, account_number = buyer
    return {
        "id": str(pk),
        "display_name": display_name,
        "external_identifier": external_identifier,
        "billing_details": billing_details,
        "account_number": account_number,
    }


def demo_rows(
    merchant_account: MerchantAccount, numbers: range, *, buyers_total: int, clock: DemoClock
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Demo transaction `n` for each number, as column values, with its history events."""
    cards = _cards(fingerprint("demo"))
    expiry = f"12/{(date.today().year + 3) % 100:02d}"
    buyer_numbers = {n: (n * 7919) % buyers_total + 1 for n in numbers} if buyers_total else {}
    buyers = _buyer_rows(merchant_account, list(set(buyer_numbers.values()))) if buyers_total else {}
    # The sandbox decided them: the account's mock-card service, which captures, voids and refunds them.
    sandbox = (
        PaymentService.objects.filter(merchant_account=merchant_account, definition_id="mock-card")
        .order_by("is_deleted", "position")
        .values_list("pk", flat=True)
        .first()
    )
    for number in numbers:
        card = cards[(number * 31) % len(cards)]
        currency, amounts = _PRICES[(number * 17) % len(_PRICES)]
        amount = amounts[number % len(amounts)]
        capture = number % 2 == 1
        status = _status(card, capture)
        created = clock.at(number)
        decided = created + timedelta(milliseconds=180 + number % 400)
        approved = card.outcome == Outcome.APPROVED
        pk = uuid.uuid4()
        buyer = buyers.get(buyer_identifier(buyer_numbers[number])) if buyer_numbers else None
        details = _buyer_details(buyer) if buyer else None
        row = {
            "id": pk,
            "merchant_account_id": merchant_account.pk,
            "amount": amount,
            "currency": currency,
            "country": "US",
            "intent": "capture" if capture else "authorize",
            "status": status,
            "authorized_amount": amount if approved else 0,
            "captured_amount": amount if approved and capture else 0,
            "refunded_amount": 0,
            "settled_amount": 0,  # COPY sends every column: the model default is not the table's
            "external_identifier": f"{EXTERNAL_IDENTIFIER_PREFIX}{number:06d}",
            "buyer_id": buyer[0] if buyer else None,
            "buyer_external_identifier": buyer[1] if buyer else None,
            "buyer_details": details,
            "buyer_email_address": ((details or {}).get("billing_details") or {}).get("email_address"),
            "method": "card",
            "card_scheme": card.scheme,
            "card_bin": card.bin,
            "card_last4": card.last4,
            "card_expiration_date": expiry,
            "card_fingerprint": card.fingerprint,
            "payment_service_id": sandbox,
            "payment_service_transaction_id": f"sandbox-authorization-{pk}",
            "error_code": card.error_code,
            "raw_response_code": card.raw_response_code,
            "raw_response_description": card.raw_response_description,
            "cvv_response_code": card.cvv_response_code,
            "payment_source": "ecommerce",
            "merchant_initiated": False,
            "is_subsequent_payment": False,
            "account_funding_transaction": False,
            "allow_partial_authorization": False,
            "authorized_at": decided if approved else None,
            "captured_at": decided if approved and capture else None,
            "created_at": created,
            "updated_at": decided,
        }
        events = [
            _event(pk, "transaction_created", None, TransactionStatus.PROCESSING, amount, created),
            _event(pk, status if approved else f"authorization_{card.outcome}", "processing", status, amount, decided),
        ]
        yield row, events


def _event(pk: uuid.UUID, name: str, before: str | None, after: str, amount: int, at: datetime) -> dict[str, Any]:
    return {
        "transaction_id": pk,
        "name": name,
        "actor_type": TransactionEvent.ActorType.SYSTEM,
        "actor": "",
        "from_status": before,
        "to_status": after,
        "amount": amount,
        "details": {},
        "created_at": at,
    }


_EVENT_COLUMNS = (
    "transaction_id", "name", "actor_type", "actor", "from_status", "to_status", "amount", "details", "created_at",
)  # fmt: skip


def _copy_value(value: object) -> str:
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, dict):
        return copy_text(json.dumps(value))
    return copy_text(value)


def _line(values: dict[str, Any]) -> str:
    """One row in COPY text format, its columns in the dict's order."""
    return "\t".join(_copy_value(value) for value in values.values()) + "\n"


def _insert(merchant_account: MerchantAccount, numbers: range, *, buyers_total: int, clock: DemoClock) -> None:
    rows = list(demo_rows(merchant_account, numbers, buyers_total=buyers_total, clock=clock))
    if connection.vendor != "postgresql":
        _bulk_create(rows)
        return
    with transaction.atomic():
        copy_lines("transactions_transaction", tuple(rows[0][0]), (_line(row) for row, _ in rows))
        copy_lines("transactions_transactionevent", _EVENT_COLUMNS, (_line(e) for _, events in rows for e in events))


def _bulk_create(rows: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> None:
    with transaction.atomic():
        transactions = Transaction.objects.bulk_create([Transaction(**row) for row, _ in rows])
        events = TransactionEvent.objects.bulk_create([TransactionEvent(**e) for _, events in rows for e in events])
        # The inserts stamp "now" (auto_now_add, auto_now); the demo clock's times replace it.
        for txn, (row, _) in zip(transactions, rows, strict=True):
            txn.created_at, txn.updated_at = row["created_at"], row["updated_at"]
        Transaction.objects.bulk_update(transactions, ["created_at", "updated_at"])
        history = [e for _, events in rows for e in events]
        for event, values in zip(events, history, strict=True):
            event.created_at = values["created_at"]
        TransactionEvent.objects.bulk_update(events, ["created_at"])


def seed_demo_transactions(run: DemoRun) -> DemoResult:
    """Bring the account's demo transactions up to `run.total`, in batches that go in whole and in order."""
    merchant_account = run.merchant_account
    with seeding_lock("transactions", merchant_account):
        before = demo_transactions(merchant_account).count()
        buyers_total = demo_buyers(merchant_account).count()
        clock = DemoClock(now=timezone.now(), total=run.total, history=HISTORY)
        existing = Transaction.objects.order_by()[:BULK_LOAD_MIN_ROWS].count()
        with bulk_load("transactions_transaction", new_rows=run.total - before, existing_rows=existing):
            for first in range(before + 1, run.total + 1, run.batch_size):
                batch = range(first, min(first + run.batch_size, run.total + 1))
                _insert(merchant_account, batch, buyers_total=buyers_total, clock=clock)
                if run.on_progress is not None:
                    run.on_progress(batch[-1], run.total)
    return DemoResult(before=before, after=demo_transactions(merchant_account).count())
