"""Badges beside a transaction in the desk's lists: how it was paid when not by card, what went back."""

import pytest

from transactions.badges import method_badge
from transactions.desk import transaction_label
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db


def test_a_paypal_payment_has_its_own_badge_with_the_payers_masked_email(merchant_account):
    paypal = TransactionFactory(
        merchant_account=merchant_account,
        authorized=True,
        method="paypal",
        payer_label="b***@example.com",
        card_last4=None,
    )
    card = TransactionFactory(merchant_account=merchant_account, authorized=True)

    assert 'data-badge="paypal">PayPal b***@example.com</span>' in method_badge(paypal)
    assert method_badge(card) == ""
    assert 'data-badge="paypal"' in transaction_label(paypal)
    assert 'data-badge="paypal"' not in transaction_label(card)


@pytest.mark.parametrize(("method", "name"), [("applepay", "Apple Pay"), ("googlepay", "Google Pay")])
def test_a_wallet_payment_has_the_wallets_badge_beside_its_card(merchant_account, method, name):
    paid = TransactionFactory(merchant_account=merchant_account, authorized=True, method=method)

    assert f'data-badge="{method}">{name}</span>' in method_badge(paid)
    assert f'data-badge="{method}"' in transaction_label(paid)
    assert paid.card_last4 in transaction_label(paid)
