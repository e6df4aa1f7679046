from datetime import timedelta

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from checkout.models import CheckoutSession
from payments.tests.factories import MerchantAccountFactory, VaultedCardFactory


class CheckoutSessionFactory(DjangoModelFactory[CheckoutSession]):
    class Meta:
        model = CheckoutSession

    class Params:
        # A session Secure Fields has already stored a card on: it lives 5 more minutes, like its card.
        with_card = factory.Trait(
            expires_at=factory.LazyFunction(lambda: timezone.now() + timedelta(minutes=5)),
            card=factory.SubFactory(
                VaultedCardFactory,
                merchant_account=factory.SelfAttribute("..merchant_account"),
                expires_at=factory.SelfAttribute("..expires_at"),
            ),
        )

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=1))
    amount = 1299
    currency = "USD"
    metadata = factory.Dict({"order_id": factory.Sequence(lambda n: f"order-{n}")})
