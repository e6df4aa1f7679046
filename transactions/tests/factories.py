import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from payments.tests.factories import MerchantAccountFactory
from paymentservices.models import PaymentService
from transactions.models import Capture, Refund, Transaction, TransactionStatus


class TransactionFactory(DjangoModelFactory[Transaction]):
    """A card transaction as the services leave it; traits pick the status and the matching amounts."""

    class Meta:
        model = Transaction

    class Params:
        authorized = factory.Trait(
            status=TransactionStatus.AUTHORIZATION_SUCCEEDED,
            authorized_amount=factory.SelfAttribute("amount"),
            authorized_at=factory.LazyFunction(timezone.now),
            payment_service_transaction_id=factory.Sequence(lambda n: f"sandbox-authorization-{n}"),
            raw_response_code="00",
            raw_response_description="Approved",
        )
        captured = factory.Trait(
            authorized=True,
            status=TransactionStatus.CAPTURE_SUCCEEDED,
            captured_amount=factory.SelfAttribute("amount"),
            captured_at=factory.LazyFunction(timezone.now),
        )
        declined = factory.Trait(
            status=TransactionStatus.AUTHORIZATION_DECLINED,
            error_code="issuer_decline",
            raw_response_code="05",
            raw_response_description="Do not honor",
        )

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    amount = 1299
    currency = "USD"
    status = TransactionStatus.PROCESSING
    method = "card"
    card_scheme = "visa"
    card_bin = "411111"
    card_last4 = "1111"
    card_expiration_date = "12/30"
    card_fingerprint = factory.Sequence(lambda n: f"fingerprint-{n}")
    # A card payment was authorized by a payment service: the account's sandbox (its first mock-card service).
    payment_service = factory.LazyAttribute(
        lambda txn: (
            PaymentService.objects.filter(merchant_account=txn.merchant_account, definition_id="mock-card")
            .order_by("is_deleted", "position")
            .first()
            if txn.method == "card"
            else None
        )
    )


class RefundFactory(DjangoModelFactory[Refund]):
    class Meta:
        model = Refund

    transaction = factory.SubFactory(TransactionFactory, captured=True)
    merchant_account = factory.SelfAttribute("transaction.merchant_account")
    target_type = Refund.TargetType.PAYMENT_METHOD
    amount = 100
    currency = factory.SelfAttribute("transaction.currency")
    status = Refund.Status.SUCCEEDED


class CaptureFactory(DjangoModelFactory[Capture]):
    """A transaction's one capture, of all it captured."""

    class Meta:
        model = Capture

    transaction = factory.SubFactory(TransactionFactory, captured=True)
    merchant_account = factory.SelfAttribute("transaction.merchant_account")
    sequence = 1
    amount = factory.SelfAttribute("transaction.captured_amount")
    currency = factory.SelfAttribute("transaction.currency")
    status = Capture.Status.SUCCEEDED
    captured_at = factory.SelfAttribute("transaction.captured_at")
