"""The official `gr4vy` SDK, unchanged, against a running server: a returning buyer's card stored, listed, paid with
(customer- and merchant-initiated), kept from a checkout session with `store: true`, deleted, and refused after."""

import pytest
from gr4vy import errors, models

from checkout.tests.factories import CheckoutSessionFactory
from paymentmethods.models import PaymentMethod
from payments.vault.models import VaultedCard

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_returning_buyer_pays_in_one_click(sdk, merchant_account):
    buyer = sdk.buyers.create(display_name="Ada Lovelace", external_identifier="ada")

    stored = sdk.payment_methods.create(
        request_body={"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "buyer_id": buyer.id}
    )
    assert isinstance(stored, models.PaymentMethod)
    assert (stored.label, stored.scheme, stored.expiration_date, stored.status) == (
        "1111",
        "visa",
        "12/39",
        "succeeded",
    )
    assert stored.buyer.id == buyer.id

    listed = sdk.buyers.payment_methods.list(buyer_external_identifier="ada")
    assert [item.id for item in listed.items] == [stored.id]
    page = sdk.payment_methods.list(buyer_id=buyer.id)
    assert [item.id for item in page.result.items] == [stored.id]

    customer = sdk.transactions.create(
        amount=1299, currency="USD", payment_method={"method": "id", "id": stored.id, "security_code": "123"}
    )
    merchant = sdk.transactions.create(
        amount=999,
        currency="USD",
        payment_method={"method": "id", "id": stored.id},
        merchant_initiated=True,
        payment_source="recurring",
        is_subsequent_payment=True,
    )
    assert (customer.status, customer.payment_method.id, customer.buyer.id) == (
        "authorization_succeeded",
        stored.id,
        buyer.id,
    )
    assert (merchant.status, merchant.merchant_initiated, merchant.payment_source) == (
        "authorization_succeeded",
        True,
        "recurring",
    )
    used = sdk.payment_methods.get(payment_method_id=stored.id)
    assert (used.usage_count, used.cit_usage_count) == (2, 1)

    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True, card__number="5555555555554444")
    from_session = sdk.transactions.create(
        amount=500, currency="USD", payment_method={"method": "checkout-session", "id": str(session.id)},
        store=True, buyer_id=buyer.id,
    )  # fmt: skip
    kept = from_session.payment_method.id
    assert kept is not None
    assert kept != stored.id
    assert {item.id for item in sdk.buyers.payment_methods.list(buyer_id=buyer.id).items} == {stored.id, kept}

    sdk.payment_methods.delete(payment_method_id=stored.id)
    assert not PaymentMethod.objects.filter(pk=stored.id).exists()
    assert VaultedCard.objects.filter(payment_method__isnull=False).count() == 1  # only the kept session card
    with pytest.raises(errors.Error404):
        sdk.transactions.create(amount=1299, currency="USD", payment_method={"method": "id", "id": stored.id})
