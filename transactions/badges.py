"""Badges staff see beside a transaction: how it was paid when not by card, and what happened to the money after
it was taken.

The refund badge reads the transaction's own columns (no query); the dispute badge, the states of its disputes.
"""

from collections.abc import Iterable

from django.utils.html import format_html
from django.utils.safestring import SafeString

from payments.choices import DisputeState
from paymentservices.catalogues import redirect_methods
from transactions.models import Transaction

_DISPUTE_LABELS = {
    DisputeState.INQUIRY: "Dispute: inquiry",
    DisputeState.NEEDS_RESPONSE: "Dispute: answer due",
    DisputeState.UNDER_REVIEW: "Dispute: under review",
    DisputeState.WON: "Dispute won",
    DisputeState.LOST: "Dispute lost",
    DisputeState.ACCEPTED: "Dispute accepted",
}
# One badge for all of a transaction's disputes: the state that matters most to the merchant (an open one, then a
# loss, then a win).
_DISPUTE_PRIORITY = (*DisputeState.OPEN, DisputeState.LOST, DisputeState.ACCEPTED, DisputeState.WON)


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


# The wallets by `method`, as their makers name them.
_WALLET_NAMES = {"applepay": "Apple Pay", "googlepay": "Google Pay"}


def method_badge(txn: Transaction) -> SafeString:
    """The way of paying's name (`PayPal`), with the payer's masked email, beside a payment the buyer approved on its
    processor's pages (a card shows its last 4 instead); `Apple Pay` or `Google Pay` beside one a wallet's card paid
    (which shows its last 4 as well); nothing for a typed or stored card."""
    if txn.method in _WALLET_NAMES:
        return format_html(
            ' <span class="badge badge-wallet" data-badge="{}">{}</span>', txn.method, _WALLET_NAMES[txn.method]
        )
    processor = redirect_methods().get(txn.method or "")
    if processor is None:
        return SafeString("")
    return format_html(
        ' <span class="badge badge-{}" data-badge="{}">{}{}</span>',
        txn.method,
        txn.method,
        processor.method_display_name,
        f" {txn.payer_label}" if txn.payer_label else "",
    )


def dispute_badge(states: Iterable[str]) -> SafeString:
    """Where a transaction's disputes stand (their `states`), as one badge; nothing when it has none."""
    present = set(states)
    for state in _DISPUTE_PRIORITY:
        if state in present:
            return format_html(
                ' <span class="badge badge-dispute" data-badge="dispute-{}">{}</span>', state, _DISPUTE_LABELS[state]
            )
    return SafeString("")
