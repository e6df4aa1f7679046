from datetime import timedelta

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from buyers.tests.factories import BuyerFactory
from giftcards.models import GiftCard, IssuedGiftCard
from giftcards.services import issued_card_create
from payments.tests.factories import MerchantAccountFactory


class IssuedGiftCardFactory(factory.Factory):
    """Issues through `issued_card_create`, so balance and ledger agree from the start.

    The returned card carries its clear `number` and `pin` as plain attributes, for tests to send them.
    `expired=True` and `status="inactive"` are applied after issuing, as time and the admin would;
    `preprinted=True` is a card the command issued inactive, waiting for its activation.
    """

    class Meta:
        model = IssuedGiftCard

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    amount = 5000
    currency = "USD"
    expires_at = None
    # 19 digits under the program's BIN; the sequence keeps numbers unique within a test.
    number = factory.Sequence(lambda n: f"603571{n:013d}")
    pin = factory.Sequence(lambda n: f"{(n * 7919 + 40213) % 10**8:08d}")
    status = IssuedGiftCard.Status.ACTIVE
    expired = False
    preprinted = False

    @classmethod
    def _create(
        cls, model_class, *, merchant_account, number, pin, status, expired, preprinted, **terms
    ) -> IssuedGiftCard:
        card = issued_card_create(merchant_account=merchant_account, number=number, pin=pin, **terms).card
        changes: dict[str, object] = {}
        if preprinted:
            changes |= {"status": IssuedGiftCard.Status.INACTIVE, "awaiting_activation": True}
        if status != IssuedGiftCard.Status.ACTIVE:
            changes["status"] = status
        if expired:
            changes["expires_at"] = timezone.now() - timedelta(days=1)
        if changes:
            IssuedGiftCard.objects.filter(pk=card.pk).update(**changes)
            card.refresh_from_db()
        card.number, card.pin = number, pin
        return card


SAME_ACCOUNT = factory.SelfAttribute("..merchant_account")


class GiftCardFactory(DjangoModelFactory[GiftCard]):
    """A stored gift card of a buyer, referencing a freshly issued card of the same merchant account."""

    class Meta:
        model = GiftCard

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    buyer = factory.SubFactory(BuyerFactory, merchant_account=SAME_ACCOUNT)
    issued_card = factory.SubFactory(IssuedGiftCardFactory, merchant_account=SAME_ACCOUNT)
