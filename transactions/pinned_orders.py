"""Orders kept by an app above transactions that an embed token may be pinned to (a payment link's page mints such
tokens): the app that keeps the order makes the payment, so the order's own rules hold (a link is paid once).

The app registers, at start, the claim its tokens carry and the function that pays its order; `POST /transactions`
with a token carrying that claim goes through it. A payment that waited for the buyer (a 3-D Secure challenge) ends
after that request answered: the app's `ended` hook is told then, so its order records it at once. Transactions knows
no such app by name (docs/architecture.md).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from transactions.models import Transaction
from transactions.requests import TransactionRequest


class PinnedOrderPayer(Protocol):
    def __call__(self, *, order_id: str, request: TransactionRequest, id: UUID | None, resumed: bool) -> Transaction:
        """Pay the order `order_id` names with what the buyer chose in `request`, as the transaction `id`."""


class PinnedOrderEnded(Protocol):
    def __call__(self, *, txn: Transaction) -> None:
        """Record on the order `txn` pays, if it pays one of the app's, how its payment ended."""


logger = logging.getLogger(__name__)

_payers: dict[str, PinnedOrderPayer] = {}
_ended: dict[str, PinnedOrderEnded] = {}


def register_pinned_order(claim: str, payer: PinnedOrderPayer, *, ended: PinnedOrderEnded | None = None) -> None:
    """Tokens whose `embed` claim names `claim` pay through `payer`, and `ended` hears of payments that ended after
    their request answered (an app's `ready`)."""
    _payers[claim] = payer
    if ended is not None:
        _ended[claim] = ended


def pinned_orders_payment_ended(*, txn: Transaction) -> None:
    """A payment that waited for the buyer ended (a 3-D Secure challenge answered): each app's `ended` hook records
    it on the order it pays, if any, rather than at the app's next look."""
    for ended in _ended.values():
        try:
            ended(txn=txn)
        except Exception:  # the payment is recorded already; the app's own job looks again at its orders
            logger.exception("Transaction %s: its order could not record how its payment ended", txn.pk)


@dataclass(frozen=True)
class PinnedOrder:
    """The order a token pins, and how it is paid."""

    order_id: str
    payer: PinnedOrderPayer

    def pay(self, *, request: TransactionRequest, id: UUID | None, resumed: bool) -> Transaction:
        return self.payer(order_id=self.order_id, request=request, id=id, resumed=resumed)


def pinned_order(pins: dict[str, Any]) -> PinnedOrder | None:
    """The order a token's `embed` claim pins, with its payer; None for a token that pins no such order."""
    for claim, payer in _payers.items():
        if claim in pins:
            return PinnedOrder(order_id=str(pins[claim]), payer=payer)
    return None
