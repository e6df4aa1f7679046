"""Badges staff see beside a transaction in lists: how it was paid when not by card, and what happened to the money
after it was taken.

Read from the transaction's own columns (no query). Disputes get no badge: this server records none (no processor
reports them yet; `GET /transactions?disputed=true` is always empty, docs/transactions.md).
"""

from django.utils.html import format_html
from django.utils.safestring import SafeString

from transactions.models import Transaction


def refund_badge(txn: Transaction) -> SafeString:
    """`Refunded` when everything captured went back, `Partly refunded` when some did, else nothing."""
    if not txn.refunded_amount:
        return SafeString("")
    full = txn.refunded_amount >= txn.captured_amount
    return format_html(
        ' <span class="badge badge-refund" data-badge="{}">{}</span>',
        "refunded" if full else "partly-refunded",
        "Refunded" if full else "Partly refunded",
    )


def method_badge(txn: Transaction) -> SafeString:
    """`PayPal`, with the payer's masked email, beside a payment made with a PayPal account (a card shows its last 4
    instead)."""
    if txn.method != "paypal":
        return SafeString("")
    return format_html(
        ' <span class="badge badge-paypal" data-badge="paypal">PayPal{}</span>',
        f" {txn.payer_label}" if txn.payer_label else "",
    )
