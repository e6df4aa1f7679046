import pytest

from paymentservices.models import PaymentService
from paymentservices.tests.factories import PaymentServiceFactory


@pytest.fixture
def sandbox_service(merchant_account):
    """The account's sandbox payment service (a new account's first), which pays out."""
    existing = PaymentService.objects.filter(merchant_account=merchant_account, definition_id="mock-card").first()
    return existing or PaymentServiceFactory(merchant_account=merchant_account, mock_card=True, display_name="Sandbox")


@pytest.fixture
def stripe_service(merchant_account):
    """A Stripe payment service, the account's only one: it takes payments, and cannot pay out to cards."""
    PaymentService.objects.filter(merchant_account=merchant_account).delete()
    return PaymentServiceFactory(merchant_account=merchant_account, display_name="Stripe")
