"""Payment links as the API creates them; traits for each status."""

from __future__ import annotations

import uuid
from datetime import timedelta

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from paymentlinks.models import PaymentLink, PaymentLinkStatus
from payments.tests.factories import MerchantAccountFactory


class PaymentLinkFactory(DjangoModelFactory[PaymentLink]):
    class Meta:
        model = PaymentLink

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    amount = 1299
    currency = "USD"
    country = "US"
    merchant_name = "ACME Inc."

    class Params:
        completed = factory.Trait(status=PaymentLinkStatus.COMPLETED, transaction_id=factory.LazyFunction(uuid.uuid4))
        processing = factory.Trait(status=PaymentLinkStatus.PROCESSING, transaction_id=factory.LazyFunction(uuid.uuid4))
        expired = factory.Trait(status=PaymentLinkStatus.EXPIRED)
        lapsed = factory.Trait(expires_at=factory.LazyFunction(lambda: timezone.now() - timedelta(seconds=1)))
