"""The official `gr4vy` SDK, unchanged, pays with Apple Pay and Google Pay tokens the suite makes in the published
formats, for the account's registered wallets: through the sandbox, and through Adyen (Prism validating every
request by Adyen's contract)."""

from __future__ import annotations

import pytest
from gr4vy import errors, models

from digitalwallets.tests.tokens import wallets_registered
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.adyen.tests.mock import PAYMENT_PSP
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def wallets(merchant_account, settings, tmp_path):
    return wallets_registered(merchant_account, settings=settings, directory=tmp_path)


def _paid(sdk, method: str, token, **fields) -> models.Transaction:
    return sdk.transactions.create(
        amount=1299, currency="USD", payment_method={"method": method, "token": token}, **fields
    )


def test_the_sdk_pays_with_apple_pay_and_google_pay_through_the_sandbox(sdk, wallets):
    apple = _paid(sdk, "applepay", wallets.apple())
    google = _paid(sdk, "googlepay", wallets.google())

    for paid, wallet in ((apple, "applepay"), (google, "googlepay")):
        assert isinstance(paid, models.Transaction)
        assert (paid.status, paid.payment_method.method, paid.instrument_type) == (
            "authorization_succeeded",
            wallet,
            wallet,
        )
        assert paid.payment_service.payment_service_definition_id == "mock-card"
    listed = sdk.transactions.list().result.items
    assert sorted(item.payment_method.method for item in listed) == ["applepay", "googlepay"]


def test_the_sdk_is_refused_a_replayed_token_by_name(sdk, wallets):
    token = wallets.google()
    _paid(sdk, "googlepay", token)

    with pytest.raises(errors.Error409) as refused:
        _paid(sdk, "googlepay", token)

    assert "already been used" in refused.value.message
    assert Transaction.objects.count() == 1


def test_the_sdk_pays_with_apple_pay_and_google_pay_through_adyen(sdk, wallets, merchant_account, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    adyen = PaymentServiceFactory(
        merchant_account=merchant_account,
        definition_id=ADYEN.id,
        display_name="Adyen",
        fields=[
            {"key": "api_key", "value": "AQE_sdk_wallet_key_0123"},
            {"key": "merchant_account", "value": "ShopECOM"},
        ],
        accepted_currencies=["USD"],
    )

    for wallet, token in (("applepay", wallets.apple()), ("googlepay", wallets.google())):
        paid = _paid(sdk, wallet, token, payment_service_id=str(adyen.pk))
        assert (paid.status, paid.payment_service_transaction_id, paid.payment_method.method) == (
            "authorization_succeeded",
            PAYMENT_PSP,
            wallet,
        )
    assert adyen_mock.violations() == []
