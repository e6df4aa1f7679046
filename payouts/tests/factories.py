"""Payouts made as the API makes them: through `payout_create`, with the sandbox paying out."""

import factory

from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.factories import MerchantAccountFactory
from paymentservices.models import PaymentService
from paymentservices.tests.factories import PaymentServiceFactory
from payouts.models import Payout
from payouts.requests import PayoutCard, PayoutCreateRequest
from payouts.services import payout_create


class PayoutFactory(factory.Factory):
    """A payout to a card given once (`number`), through the account's sandbox service unless one is given."""

    class Meta:
        model = Payout

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    payment_service = factory.LazyAttribute(
        lambda o: (
            PaymentService.objects.filter(merchant_account=o.merchant_account, definition_id="mock-card").first()
            or PaymentServiceFactory(merchant_account=o.merchant_account, mock_card=True)
        )
    )
    amount = 1299
    currency = "USD"
    number = "4111111111111111"
    external_identifier = None

    @classmethod
    def _create(cls, model_class, *, merchant_account, payment_service, number, **fields) -> Payout:
        request = PayoutCreateRequest(
            payment_method=PayoutCard(number=number, expiration_month=12, expiration_year=2039),
            payment_service_id=payment_service.pk,
            **fields,
        )
        return payout_create(merchant_account=merchant_account, request=request)


__all__ = ["PaymentMethodFactory", "PayoutFactory"]
