import factory
from factory.django import DjangoModelFactory

from buyers.models import Buyer, ShippingDetails
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


class ShippingDetailsFactory(DjangoModelFactory[ShippingDetails]):
    class Meta:
        model = ShippingDetails

    buyer = factory.SubFactory(BuyerFactory)
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    address = factory.LazyFunction(lambda: {"city": "London", "country": "GB", "line1": "1 Main Street"})
