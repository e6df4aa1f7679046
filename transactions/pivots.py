"""The transactions app's pivots (payments.staff.pivots): a buyer's transactions, a gift card's redemptions."""

from django.db.models import Count, QuerySet, Sum
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from payments.money import format_money
from payments.staff import pivots
from payments.staff.dates import desk_datetime
from transactions.admin import ACTIONS, OPERATE_PERMISSION
from transactions.badges import method_badge, refund_badge
from transactions.models import GiftCardRedemption, Transaction, TransactionEvent
from transactions.related import related_prefetches


def _transaction(txn: Transaction) -> SafeString:
    url = reverse("admin:transactions_transaction_change", args=[txn.pk])
    return format_html(
        '<a href="{}">{}</a> {} {}, {}{}{}',
        url,
        str(txn.pk).split("-")[0],
        desk_datetime(txn.created_at),
        format_money(txn.amount, txn.currency),
        txn.status.replace("_", " "),
        method_badge(txn),
        refund_badge(txn),
    )


def _totals(transactions: QuerySet[Transaction]) -> str:
    """Per currency: how many payments, what was taken and what went back (one grouped query)."""
    rows = (
        transactions.order_by()
        .values("currency")
        .annotate(count=Count("id"), captured=Sum("captured_amount"), refunded=Sum("refunded_amount"))
        .order_by("currency")
    )
    return "; ".join(
        f"{row['currency']}: {row['count']:,} payment(s), captured {format_money(row['captured'], row['currency'])}, "
        f"refunded {format_money(row['refunded'], row['currency'])}"
        for row in rows
    )


def _offered(txn: Transaction) -> list[tuple[str, str]]:
    """The transaction page's own buttons, by the same rules: each opens its confirmation page."""
    return [
        (action.label, reverse(f"admin:transactions_transaction_{action.name}", args=[txn.pk]))
        for action in ACTIONS.values()
        if action.offered(txn)
    ]


def _event(event: TransactionEvent) -> SafeString:
    url = reverse("admin:transactions_transaction_change", args=[event.transaction_id])
    amount = format_money(event.amount, event.transaction.currency) if event.amount is not None else ""
    return format_html(
        '{} <a href="{}">{}</a> {} {}',
        desk_datetime(event.created_at),
        url,
        str(event.transaction_id).split("-")[0],
        event.name.replace("_", " "),
        amount,
    )


def _redemption(redemption: GiftCardRedemption) -> SafeString:
    url = reverse("admin:transactions_transaction_change", args=[redemption.transaction_id])
    return format_html(
        '<a href="{}">transaction {}</a> {} {} ({} refunded), {}',
        url,
        str(redemption.transaction_id).split("-")[0],
        desk_datetime(redemption.created_at),
        format_money(redemption.amount, redemption.issued_card.currency),
        format_money(redemption.refunded_amount, redemption.issued_card.currency),
        redemption.status,
    )


def register() -> None:
    pivots.register(
        pivots.Pivot(
            target="buyers.buyer",
            title="Transactions",
            model=Transaction,
            lookup="buyer_id",
            describe=_transaction,
            changelist_param="buyer__id__exact",
            summary=_totals,
            # What is left to refund counts the gift cards' parts too, and leaves out what disputes took back.
            actions=pivots.RowActions(OPERATE_PERMISSION, _offered, prefetch_related=tuple(related_prefetches())),
        )
    )
    pivots.register(
        pivots.Pivot(
            target="buyers.buyer",
            title="Recent events",
            model=TransactionEvent,
            lookup="transaction__buyer_id",
            describe=_event,
            select_related=("transaction",),
        )
    )
    for target, lookup in (("giftcards.issuedgiftcard", "issued_card_id"), ("giftcards.giftcard", "gift_card_id")):
        pivots.register(
            pivots.Pivot(
                target=target,
                title="Redemptions",
                model=GiftCardRedemption,
                lookup=lookup,
                describe=_redemption,
                select_related=("issued_card",),
            )
        )
