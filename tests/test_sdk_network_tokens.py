"""The official `gr4vy` SDK, unchanged, against a running server: a stored card's network tokens listed (none: no
network token service is configured), and every operation that would ask such a service, and the account updater,
refused by name with a typed error."""

import uuid

import pytest
from gr4vy import errors, models

from paymentmethods.tests.factories import PaymentMethodFactory

pytestmark = pytest.mark.django_db(transaction=True)

REFUSAL = "no network token service is configured"


@pytest.fixture
def method_id(merchant_account) -> str:
    return str(PaymentMethodFactory(merchant_account=merchant_account).pk)


def test_a_stored_card_has_no_network_tokens(sdk, method_id):
    listed = sdk.payment_methods.network_tokens.list(payment_method_id=method_id)

    assert isinstance(listed, models.NetworkTokens)
    assert listed.items == []
    with pytest.raises(errors.Error404):
        sdk.payment_methods.network_tokens.list(payment_method_id=str(uuid.uuid4()))


def test_each_network_token_operation_is_refused_by_name(sdk, method_id):
    tokens = sdk.payment_methods.network_tokens
    token_id = str(uuid.uuid4())
    calls = {
        "provision": lambda: tokens.create(
            payment_method_id=method_id, merchant_initiated=False, is_subsequent_payment=False
        ),
        "suspend": lambda: tokens.suspend(payment_method_id=method_id, network_token_id=token_id),
        "resume": lambda: tokens.resume(payment_method_id=method_id, network_token_id=token_id),
        "delete": lambda: tokens.delete(payment_method_id=method_id, network_token_id=token_id),
        "cryptogram": lambda: tokens.cryptogram.create(
            payment_method_id=method_id, network_token_id=token_id, merchant_initiated=False
        ),
        "account updater": lambda: sdk.account_updater.jobs.create(payment_method_ids=[method_id]),
    }
    for name, call in calls.items():
        with pytest.raises(errors.Error400) as refused:
            call()
        assert REFUSAL in refused.value.message, name
