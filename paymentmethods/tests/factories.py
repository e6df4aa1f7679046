import factory

from buyers.tests.factories import BuyerFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.services import CardToStore, payment_method_store
from payments.tests.factories import MerchantAccountFactory


class PaymentMethodFactory(factory.Factory):
    """Stores through `payment_method_store`, so the card is sealed in the vault as the API would seal it."""

    class Meta:
        model = PaymentMethod

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    buyer = factory.LazyAttribute(lambda o: BuyerFactory(merchant_account=o.merchant_account))
    number = "4111111111111111"
    expiration_month = 12
    expiration_year = 2039
    external_identifier = None

    @classmethod
    def _create(cls, model_class, *, number, expiration_month, expiration_year, **kwargs) -> PaymentMethod:
        return payment_method_store(card=CardToStore(number, expiration_month, expiration_year), **kwargs)
