import factory
from factory.django import DjangoModelFactory

from payments.models import MerchantAccount


class MerchantAccountFactory(DjangoModelFactory[MerchantAccount]):
    class Meta:
        model = MerchantAccount
        django_get_or_create = ("id",)

    id = factory.Sequence(lambda n: f"merchant-{n}")
    display_name = factory.Faker("company")
