from datetime import timedelta

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from payments.accounts.models import MerchantAccount
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_store


class MerchantAccountFactory(DjangoModelFactory[MerchantAccount]):
    class Meta:
        model = MerchantAccount
        django_get_or_create = ("id",)

    id = factory.Sequence(lambda n: f"merchant-{n}")
    display_name = factory.Faker("company")


class VaultedCardFactory(factory.Factory[VaultedCard]):
    """Cards go through `vaulted_card_store`, so every test card is sealed exactly as production seals it."""

    class Meta:
        model = VaultedCard

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    number = "4111111111111111"
    expiration_month = 12
    expiration_year = factory.LazyFunction(lambda: timezone.now().year + 3)
    security_code = "123"
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(minutes=5))

    @classmethod
    def _create(cls, model_class, **kwargs) -> VaultedCard:
        return vaulted_card_store(**kwargs)
