import factory
from factory.django import DjangoModelFactory

from buyers.models import Buyer
from payments.tests.factories import MerchantAccountFactory


class BuyerFactory(DjangoModelFactory[Buyer]):
    class Meta:
        model = Buyer

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    display_name = factory.Faker("name")
    external_identifier = factory.Sequence(lambda n: f"buyer-{n}")
    billing_details = factory.LazyAttribute(
        lambda o: {"email_address": f"{o.external_identifier}@example.com", "first_name": o.display_name.split()[0]}
    )
