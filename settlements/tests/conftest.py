import pytest

from transactions.tests.factories import TransactionFactory

# The Adyen payment the settlement report tests settle: its PSP reference at Adyen.
PSP = "ABCDEF0123456789"


@pytest.fixture
def paid(merchant_account):
    """A captured 100.00 EUR payment made through Adyen."""
    return TransactionFactory(
        merchant_account=merchant_account,
        captured=True,
        amount=10000,
        currency="EUR",
        payment_service_transaction_id=PSP,
    )
