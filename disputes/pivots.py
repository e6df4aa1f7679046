"""The disputes app's pivot (payments.staff.pivots): a buyer's disputes on the buyer's page, each with its badge."""

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from disputes.models import Dispute
from payments.money import format_money
from payments.staff import pivots
from payments.staff.dates import desk_date
from transactions.badges import dispute_badge


def _dispute(dispute: Dispute) -> SafeString:
    url = reverse("admin:transactions_transaction_change", args=[dispute.transaction_id])
    due = desk_date(dispute.due_at) if dispute.due_at and dispute.open else ""
    return format_html(
        '<a href="{}">transaction {}</a> {}{}{}{}',
        url,
        str(dispute.transaction_id).split("-")[0],
        format_money(dispute.amount, dispute.currency),
        f", {dispute.reason}" if dispute.reason else "",
        f", answer due {due}" if due else "",
        dispute_badge([dispute.state]),
    )


def register() -> None:
    pivots.register(
        pivots.Pivot(
            target="buyers.buyer",
            title="Disputes",
            model=Dispute,
            lookup="transaction__buyer_id",
            describe=_dispute,
            changelist_param="transaction__buyer__id__exact",
        )
    )
