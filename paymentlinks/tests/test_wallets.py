"""A payment link paid with Apple Pay or Google Pay from its page: the page's token sends the wallet's token
(`POST /transactions`), the link's order decides the payment as for a card, and the link is claimed first, one link
one payment; any other method of the buyer's own is refused before anything is claimed."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from digitalwallets.tests.tokens import wallets_registered
from paymentlinks.embed import page_checkout
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.services import payment_link_pay_pinned
from paymentlinks.tests.factories import PaymentLinkFactory
from payments.errors import DomainError
from transactions.models import Transaction
from transactions.requests import StoredPaymentMethodRequest, TransactionRequest

pytestmark = pytest.mark.django_db


@pytest.fixture
def link():
    return PaymentLinkFactory(intent="capture", external_identifier="invoice-11")


@pytest.fixture
def wallets(link, settings, tmp_path):
    return wallets_registered(link.merchant_account, settings=settings, directory=tmp_path)


def _pay_with_wallet(token: str, method: str, wallet_token, *, amount: int = 1299, intent: str = "authorize"):
    payload = {
        "amount": amount,
        "currency": "USD",
        "intent": intent,  # the link's order decides, never the body
        "payment_method": {"method": method, "token": wallet_token},
    }
    return APIClient().post("/transactions", payload, format="json", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_the_pages_token_pays_its_link_with_apple_pay(link, wallets):
    checkout = page_checkout(link)

    response = _pay_with_wallet(checkout.token, "applepay", wallets.apple(amount=link.amount))

    assert response.status_code == 201, response.json()
    assert response.json()["payment_method"]["method"] == "applepay"
    (txn,) = Transaction.objects.filter(payment_link_id=link.pk)
    assert (txn.pk, txn.method, txn.status, txn.intent) == (
        uuid.UUID(response.json()["id"]),
        "applepay",
        "capture_succeeded",
        "capture",
    )
    assert (txn.amount, txn.currency, txn.external_identifier) == (link.amount, link.currency, "invoice-11")
    assert txn.checkout_session_id == checkout.session.pk  # the page's Embed may read it back
    link.refresh_from_db()
    assert (link.status, link.transaction_id) == (PaymentLinkStatus.COMPLETED, txn.pk)


def test_a_link_paid_with_google_pay_refuses_a_second_wallet_payment(link, wallets):
    checkout = page_checkout(link)
    first = _pay_with_wallet(checkout.token, "googlepay", wallets.google())
    assert first.status_code == 201, first.json()

    second = _pay_with_wallet(checkout.token, "applepay", wallets.apple(amount=link.amount))

    assert (second.status_code, second.json()["code"]) == (409, "duplicate_record")
    (txn,) = Transaction.objects.filter(payment_link_id=link.pk)
    assert (txn.method, str(txn.pk)) == ("googlepay", first.json()["id"])


def test_a_declined_wallet_card_leaves_the_link_payable(link, wallets):
    checkout = page_checkout(link)

    response = _pay_with_wallet(
        checkout.token, "applepay", wallets.apple(amount=link.amount, number="4000000000000002")
    )

    assert response.json()["status"] == "authorization_declined"
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.ACTIVE


def test_a_method_the_page_does_not_offer_is_refused_before_the_link_is_claimed(link):
    request = TransactionRequest(
        amount=link.amount, currency=link.currency, payment_method=StoredPaymentMethodRequest(id=uuid.uuid4())
    )

    with pytest.raises(DomainError, match="Apple Pay or Google Pay"):
        payment_link_pay_pinned(order_id=str(link.pk), request=request, id=None, resumed=False)

    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.ACTIVE
    assert not Transaction.objects.exists()
