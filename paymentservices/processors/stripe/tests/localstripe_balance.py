"""What the suite's localstripe adds to localstripe's balance, where localstripe itself lacks what Stripe does
(`install()`, called by mock.py before the server starts). localstripe keeps balance transactions (one per captured
charge and per refund, listed newest first at `/v1/balance_transactions`, each `available` at once) and payouts;
unchanged, it charges no fee, and its payouts are manual ones that pay no balance transaction. This stand-in:

- charges a fee on each charge's balance transaction: 2.9% + 30 minor units, as Stripe's standard card pricing, in
  `fee` and itemized in `fee_details` as Stripe's `stripe_fee` (so `net` is the amount less the fee);
- makes a payout created `paid` an automatic one, as Stripe's scheduled payouts are, paying every balance transaction
  no payout paid before, and lists them at `GET /v1/balance_transactions?payout=<id>` as Stripe does.

Nothing else of localstripe changes; the tests' Stripe calls go through Stripe's official library.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from localstripe import resources

PERCENT_FEE = Decimal("0.029")
FIXED_FEE = 30


def stripe_fee(amount: int) -> int:
    """Stripe's standard card fee on a charge of `amount` minor units."""
    return int((amount * PERCENT_FEE).quantize(Decimal(1), rounding=ROUND_HALF_UP)) + FIXED_FEE


_balance_init = resources.BalanceTransaction.__init__
_balance_list = resources.BalanceTransaction._api_list_all
_payout_init = resources.Payout.__init__


def balance_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _balance_init(self, *args, **kwargs)
    self._payout = None
    if self.type == "charge" and self.amount > 0:
        self.fee = min(self.amount, stripe_fee(self.amount))
        self.fee_details = [
            {
                "amount": self.fee,
                "application": None,
                "currency": self.currency,
                "description": "Stripe processing fees",
                "type": "stripe_fee",
            }
        ]


def balance_list(cls: Any, url: Any, limit: Any = None, starting_after: Any = None, payout: Any = None, **kwargs: Any):
    listed = _balance_list.__func__(cls, url, limit, starting_after, **kwargs)
    if payout is not None:
        listed._list = [entry for entry in listed._list if entry._payout == payout]
    return listed


def payout_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _payout_init(self, *args, **kwargs)
    if self.status != "paid":
        return
    self.automatic = True
    for key, value in list(resources.store.items()):
        if key.startswith("balance_transaction:") and getattr(value, "_payout", None) is None:
            value._payout = self.id


def install() -> None:
    resources.BalanceTransaction.__init__ = balance_init
    resources.BalanceTransaction._api_list_all = classmethod(balance_list)
    resources.Payout.__init__ = payout_init
