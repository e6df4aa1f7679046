"""The gift card app's pivot (payments.staff.pivots): a buyer's stored gift cards."""

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from giftcards.models import GiftCard
from payments.money import format_money
from payments.staff import pivots


def _gift_card(gift_card: GiftCard) -> SafeString:
    card = gift_card.issued_card
    url = reverse("admin:giftcards_giftcard_change", args=[gift_card.pk])
    return format_html(
        '<a href="{}">•••• {}</a> balance {}, {}',
        url,
        card.last4,
        format_money(card.balance, card.currency),
        card.status,
    )


def _offered(gift_card: GiftCard) -> list[tuple[str, str]]:
    # Removes the card from the buyer's stored cards (as the API's DELETE); the card and its balance stay.
    return [("Remove", reverse("admin:giftcards_giftcard_delete", args=[gift_card.pk]))]


def register() -> None:
    pivots.register(
        pivots.Pivot(
            target="buyers.buyer",
            title="Gift cards",
            model=GiftCard,
            lookup="buyer_id",
            describe=_gift_card,
            changelist_param="buyer__id__exact",
            select_related=("issued_card",),
            actions=pivots.RowActions("giftcards.delete_giftcard", _offered),
        )
    )
