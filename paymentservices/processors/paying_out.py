"""The payouts part of the processor seam: money sent to a card (instant card payouts), in words every processor shares.

A processor that can pay out to a card declares a `CardPayouts` (its `payouts` attribute, in its folder's
`payouts.py`), and its definition's features say `payouts: true`. The payouts app asks only this: `pay_out` with one
service's credentials and a `PayoutRequest`. Our reference (the payout's id) is the processor's reference and the
idempotency key of the call, so asking again with the same request never pays twice: the processor answers what it did
the first time. That is how a payout whose answer was lost is settled (`OutcomeUnknown` leaves it pending; recovery
asks again).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from payments.connectors.base import CardDetails, ConnectorResult


@dataclass(frozen=True)
class PayoutMerchantDetails:
    """Who the money comes from, as the payout names them (upstream's `PayoutMerchant`): what the recipient's statement
    may show."""

    name: str
    statement_descriptor: str | None = None
    merchant_category_code: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class PayoutRecipient:
    """The cardholder the money goes to, as the buyer names them (any of it may be unknown)."""

    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class PayoutRequest:
    """One payout to a card: `reference` is ours (the payout's id), sent as the processor's reference and as the
    call's idempotency key."""

    reference: str
    amount: int
    currency: str
    card: CardDetails = field(repr=False)
    category: str | None = None
    merchant: PayoutMerchantDetails | None = None
    recipient: PayoutRecipient | None = None


class CardPayouts:
    """A processor's card payouts. `pay_out` answers a `ConnectorResult`: APPROVED (the money is on its way to the card;
    `processor_reference` names the payout at the processor), DECLINED (the processor or the card refused it: a card
    that cannot receive, a limit; `error_code` in upstream's words), FAILED (the processor was not asked, or refused the
    credentials: nothing was paid). It raises `payments.connectors.OutcomeUnknown` when the request may have reached
    the processor and no answer came: the payout stays pending, and asking again later with the same request answers
    what the processor did."""

    def pay_out(
        self, *, credentials: Mapping[str, str], request: PayoutRequest, deadline: float | None = None
    ) -> ConnectorResult:
        raise NotImplementedError
