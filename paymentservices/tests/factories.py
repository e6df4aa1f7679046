import factory
from factory.django import DjangoModelFactory

from payments.tests.factories import MerchantAccountFactory
from paymentservices.models import PaymentService
from paymentservices.processors.stripe import PROCESSOR as STRIPE
from paymentservices.services import payment_service_create


class PaymentServiceFactory(DjangoModelFactory[PaymentService]):
    """Services go through `payment_service_create`, so credentials are sealed and positions kept as in production.

    The default is a Stripe service taking USD and EUR in the US, GB and DE; traits make other kinds."""

    class Meta:
        model = PaymentService

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    definition_id = STRIPE.id
    display_name = factory.Sequence(lambda n: f"Stripe {n}")
    fields = factory.LazyFunction(lambda: [{"key": "secret_key", "value": "sk_test_factory_0123456789"}])
    accepted_currencies = factory.LazyFunction(lambda: ["USD", "EUR"])
    accepted_countries = factory.LazyFunction(lambda: ["US", "GB", "DE"])
    position = None
    active = True

    class Params:
        mock_card = factory.Trait(
            definition_id="mock-card", fields=factory.LazyFunction(lambda: [{"key": "merchant_id", "value": "test"}])
        )
        adyen = factory.Trait(
            definition_id="adyen-card",
            fields=factory.LazyFunction(
                lambda: [
                    {"key": "api_key", "value": "AQE_factory_adyen_key_0123"},
                    {"key": "merchant_account", "value": "ShopECOM"},
                ]
            ),
        )
        paypal = factory.Trait(
            definition_id="paypal-paypal",
            fields=factory.LazyFunction(
                lambda: [{"key": "client_id", "value": "AeA1QIZXiflr1"}, {"key": "client_secret", "value": "ECYYrrSH"}]
            ),
        )

    @classmethod
    def _create(cls, model_class, **kwargs) -> PaymentService:
        return payment_service_create(**kwargs)
