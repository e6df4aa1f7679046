"""What Stripe says it paid a Stripe account, read with Stripe's official library through the connector's checked
client (only Stripe's API host, or STRIPE_API_BASE): its balance transactions (gross, fee with its parts, net,
`available_on`, and what each was for) and its paid payouts with the balance transactions each paid.

Plain records come out (JSON-ready dicts, newest first, a page at a time): settlements.py makes them the files the
settlements app records. A call Stripe does not answer, or answers with an error, raises `BalanceUnread`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import stripe

from paymentservices.processors.stripe.connector import REFERENCE_KEY, account_client, value_of

PAGE_SIZE = 100
Record = dict[str, Any]


class BalanceUnread(Exception):
    """Stripe did not answer a read of the balance (unreachable, the key refused, an error): nothing was read."""


def _pages(list_page: Callable[[dict[str, Any]], Any], params: dict[str, Any]) -> Iterator[list[Any]]:
    """A Stripe list read page by page, newest first (`starting_after` the last object of the page before)."""
    starting_after: str | None = None
    while True:
        try:
            page = list_page({**params, **({"starting_after": starting_after} if starting_after else {})})
        except stripe.StripeError as error:
            raise BalanceUnread(f"Stripe did not answer ({type(error).__name__}, {error.http_status}).") from error
        objects = list(page.data)
        if objects:
            yield objects
        if not objects or not page.has_more:
            return
        starting_after = objects[-1].id


def balance_history(secret_key: str, *, page_size: int = PAGE_SIZE) -> Iterator[list[Record]]:
    """The account's balance transactions, newest first, each with what it was for (its `source`, expanded)."""
    client = account_client(secret_key)
    params = {"limit": page_size, "expand": ["data.source"]}
    for page in _pages(lambda p: client.v1.balance_transactions.list(params=p), params):  # type: ignore[arg-type]
        yield [balance_transaction_record(entry) for entry in page]


def paid_payouts(secret_key: str, *, page_size: int = PAGE_SIZE) -> Iterator[list[Record]]:
    """The account's payouts that reached the bank (`paid`), newest first."""
    client = account_client(secret_key)
    for page in _pages(lambda p: client.v1.payouts.list(params=p), {"limit": page_size}):  # type: ignore[arg-type]
        yield [payout_record(payout) for payout in page if value_of(payout, "status") == "paid"]


def payout_balance_transactions(secret_key: str, payout: Record, *, page_size: int = PAGE_SIZE) -> list[Record]:
    """The balance transactions a payout paid. Stripe lists them for an automatic payout only (a manual one pays
    an amount, not transactions), so a manual payout answers none."""
    if not payout["automatic"]:
        return []
    client = account_client(secret_key)
    params = {"limit": page_size, "payout": payout["id"], "expand": ["data.source"]}
    pages = _pages(lambda p: client.v1.balance_transactions.list(params=p), params)  # type: ignore[arg-type]
    return [{**balance_transaction_record(entry), "payout": payout["id"]} for page in pages for entry in page]


def balance_transaction_record(entry: Any) -> Record:
    source = value_of(entry, "source")
    expanded = isinstance(source, stripe.StripeObject)
    intent = value_of(source, "payment_intent") if expanded else None
    return {
        "id": value_of(entry, "id"),
        "type": value_of(entry, "type"),
        "reporting_category": value_of(entry, "reporting_category"),
        "amount": value_of(entry, "amount"),
        "currency": value_of(entry, "currency"),
        "fee": value_of(entry, "fee"),
        "fee_details": [_fee_detail(detail) for detail in value_of(entry, "fee_details") or []],
        "net": value_of(entry, "net"),
        "exchange_rate": value_of(entry, "exchange_rate"),
        "status": value_of(entry, "status"),
        "created": value_of(entry, "created"),
        "available_on": value_of(entry, "available_on"),
        "source": value_of(source, "id") if expanded else source,
        # What the line was for, in our terms: the PaymentIntent (our transaction's processor id) and our reference.
        "payment_intent": value_of(intent, "id") if isinstance(intent, stripe.StripeObject) else intent,
        "reference": value_of(value_of(source, "metadata"), REFERENCE_KEY) if expanded else None,
        "payout": None,
    }


def _fee_detail(detail: Any) -> Record:
    return {key: value_of(detail, key) for key in ("type", "amount", "currency", "description")}


def payout_record(payout: Any) -> Record:
    return {
        key: value_of(payout, key)
        for key in ("id", "amount", "currency", "arrival_date", "created", "status", "automatic", "balance_transaction")
    }
