"""Stripe: card payments through Stripe's official library, its events, and Stripe's own 3-D Secure on a page of this
server (docs/payment-services.md); what Stripe paid the account (balance.py, docs/reconciliation.md)."""

from paymentservices.processors.stripe.balance import (
    BalanceUnread,
    balance_history,
    balance_transaction_record,
    paid_payouts,
    payout_balance_transactions,
)
from paymentservices.processors.stripe.connector import StripeConnector
from paymentservices.processors.stripe.processor import StripeProcessor
from paymentservices.processors.stripe.settlements import read_stripe_file

PROCESSOR = StripeProcessor()

__all__ = [
    "PROCESSOR",
    "BalanceUnread",
    "StripeConnector",
    "balance_history",
    "balance_transaction_record",
    "paid_payouts",
    "payout_balance_transactions",
    "read_stripe_file",
]
