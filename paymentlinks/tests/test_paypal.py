"""A payment link paid with PayPal from its page: the page's token makes a PayPal payment of the link's order (the
link claimed first, the payment keeping the link and the page's session), the buyer approves at PayPal (the suite's
mock, Prism validating every request) and the return settles the link before the buyer is back on its page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from rest_framework.test import APIClient

from giftcards.tests.factories import IssuedGiftCardFactory
from paymentlinks.embed import page_checkout
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.tests.factories import PaymentLinkFactory
from paymentservices.processors.paypal.tests import mock as paypal
from paymentservices.processors.paypal.tests.mock import GUIDE_ANSWERS
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

PAGE = "https://pay.example/l/page"


@pytest.fixture
def service(paypal_api, merchant_account):
    for pattern, example in GUIDE_ANSWERS.items():
        paypal_api.answer(pattern, example=example)
    return PaymentServiceFactory(
        merchant_account=merchant_account, paypal=True, accepted_currencies=["USD"], accepted_countries=["US"]
    )


def _pay_with_paypal(token: str, *, amount: int = 1299, **body):
    payload = {
        "amount": amount,
        "currency": "USD",
        "intent": "capture",
        "payment_method": {"method": "paypal", "redirect_url": PAGE, "currency": "USD", "country": "US"},
        **body,
    }
    return APIClient().post("/transactions", payload, format="json", HTTP_AUTHORIZATION=f"Bearer {token}")


def _approve(paypal_api) -> str:
    """PayPal sending the buyer back, approved: where this server then sends them."""
    opened = paypal_api.calls("POST", "/v2/checkout/orders")[-1]
    back = opened.body["payment_source"]["paypal"]["experience_context"]["return_url"]
    answer = APIClient().get(back, {"token": paypal.ORDER_ID, "PayerID": "QYR5Z8XDVJNXQ"})
    assert answer.status_code == 303, answer.content
    return answer["Location"]


def test_the_pages_token_pays_its_link_with_paypal_and_the_return_completes_it(service, paypal_api, merchant_account):
    link = PaymentLinkFactory(merchant_account=merchant_account, intent="capture", external_identifier="invoice-9")
    checkout = page_checkout(link)

    response = _pay_with_paypal(checkout.token)

    assert response.status_code == 201, response.json()
    assert response.json()["status"] == "buyer_approval_pending"
    txn = Transaction.objects.get(pk=response.json()["id"])
    # The link's order, authorized as every PayPal payment is (the merchant captures it), kept with the link and
    # the page's session, so the page's token may read it back once the buyer returns.
    assert (txn.payment_link_id, txn.intent, txn.external_identifier) == (link.pk, "authorize", "invoice-9")
    assert txn.checkout_session_id == checkout.session.pk
    link.refresh_from_db()
    assert (link.status, link.transaction_id) == (PaymentLinkStatus.PROCESSING, txn.pk)

    location = urlsplit(_approve(paypal_api))

    assert f"{location.scheme}://{location.netloc}{location.path}" == PAGE
    assert parse_qs(location.query)["transaction_id"] == [str(txn.pk)]
    link.refresh_from_db()  # settled by the return itself, before the buyer's page is asked for
    assert (link.status, link.transaction_id) == (PaymentLinkStatus.COMPLETED, txn.pk)
    read = APIClient().get(f"/transactions/{txn.pk}", HTTP_AUTHORIZATION=f"Bearer {checkout.token}")
    assert (read.status_code, read.json()["status"]) == (200, "authorization_succeeded")


def test_paypal_with_gift_cards_is_refused_by_name_and_leaves_the_link_payable(service, merchant_account):
    link = PaymentLinkFactory(merchant_account=merchant_account)
    card = IssuedGiftCardFactory(merchant_account=merchant_account)
    checkout = page_checkout(link)

    response = _pay_with_paypal(checkout.token, gift_cards=[{"number": card.number, "pin": card.pin, "amount": 100}])

    assert response.status_code == 400, response.json()
    assert response.json()["details"][0]["pointer"] == "/gift_cards"
    assert not Transaction.objects.exists()
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.ACTIVE


def test_the_pages_token_pays_no_other_amount_with_paypal(service, merchant_account):
    link = PaymentLinkFactory(merchant_account=merchant_account)
    checkout = page_checkout(link)

    response = _pay_with_paypal(checkout.token, amount=1)

    assert response.status_code == 403
    assert not Transaction.objects.exists()


def test_the_page_offers_paypal_only_when_the_accounts_options_do(client, merchant_account, paypal_api):
    link = PaymentLinkFactory(merchant_account=merchant_account)
    assert 'data-methods="card"' in client.get(f"/l/{link.pk}").content.decode()

    PaymentServiceFactory(
        merchant_account=merchant_account, paypal=True, accepted_currencies=["USD"], accepted_countries=["US"]
    )

    assert 'data-methods="card paypal"' in client.get(f"/l/{link.pk}").content.decode()
