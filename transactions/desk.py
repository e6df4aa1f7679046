"""What the support desk's search box finds among transactions, and the buyers who made them."""

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from buyers.desk import buyer_hit
from payments.money import format_money
from payments.staff.dates import desk_date
from payments.staff.search import SHOWN, Hit
from transactions.badges import method_badge, refund_badge
from transactions.models import Transaction
from transactions.selectors import transaction_staff_search

VIEW = "transactions.view_transaction"


def transaction_label(txn: Transaction) -> SafeString:
    card = f" •••• {txn.card_last4}" if txn.card_last4 else ""
    return format_html(
        "{} {} {} {}{}{}{}",
        str(txn.pk).split("-")[0],
        desk_date(txn.created_at),
        format_money(txn.amount, txn.currency),
        txn.status.replace("_", " "),
        card,
        method_badge(txn),
        refund_badge(txn),
    )


def _url(txn: Transaction) -> str:
    return reverse("admin:transactions_transaction_change", args=[txn.pk])


def find_transactions(term: str) -> list[Hit]:
    """The admin list's own search (transaction_staff_search), newest first; the buyers of what it found too, so a
    card's last 4 leads to the people who paid with it."""
    rows = list(
        transaction_staff_search(Transaction.objects.select_related("buyer"), term).order_by("-created_at", "-id")[
            :SHOWN
        ]
    )
    hits = [
        Hit(
            "Transactions",
            reverse("admin:transactions_transaction_change", args=[txn.pk]),
            transaction_label(txn),
            VIEW,
        )
        for txn in rows
    ]
    return hits + [buyer_hit(txn.buyer) for txn in rows if txn.buyer is not None]
