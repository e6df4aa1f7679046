"""A payment method's card goes with it, however the method is deleted.

`payment_method_delete` deletes the card itself; this covers the deletes Django cascades from elsewhere (a buyer
deleted through `buyers.services.buyer_delete`, which knows nothing of payment methods), so no sealed card is left
behind without the method that kept it.
"""

from typing import Any

from django.db.models.signals import post_delete

from paymentmethods.models import PaymentMethod
from payments.vault.services import vaulted_cards_delete


def _delete_card(sender: type[PaymentMethod], instance: PaymentMethod, **kwargs: Any) -> None:
    vaulted_cards_delete(card_ids=[instance.card_id])


def connect() -> None:
    post_delete.connect(_delete_card, sender=PaymentMethod, dispatch_uid="paymentmethods.delete_card")
