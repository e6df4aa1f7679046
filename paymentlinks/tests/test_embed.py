"""The page's Embed: the token the server mints for a link (embed only, pinned to the link's amount, currency,
checkout session and the link itself, living no longer than the session or the link), paying the link through
`POST /transactions`, and what such a token is refused."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import jwt
import pytest
from django.core.cache import caches
from django.utils import timezone
from rest_framework.test import APIClient

from checkout.models import CheckoutSession
from checkout.services import DEFAULT_EXPIRES_IN, checkout_session_store_fields
from giftcards.tests.factories import IssuedGiftCardFactory
from paymentlinks.embed import LINK_CLAIM, PAGE_KEY_NAME, page_checkout, token_lifetime
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.tests.factories import PaymentLinkFactory
from payments.accounts.models import ApiKey
from payments.tests.factories import MerchantAccountFactory
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

VISA = "4111111111111111"
DECLINED = "4000000000000002"


def _claims(token: str) -> dict:
    return jwt.decode(token, options={"verify_signature": False})


def _with_card(session: CheckoutSession, number: str = VISA) -> CheckoutSession:
    year = timezone.now().year + 3
    return checkout_session_store_fields(
        session=session, number=number, expiration_month=12, expiration_year=year, security_code="123"
    )


def _pay(token: str, session_id, *, amount: int = 1299, currency: str = "USD", key: str | None = None, **body):
    client = APIClient()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    if key:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    payload = {
        "amount": amount,
        "currency": currency,
        "intent": "capture",
        "payment_method": {"method": "checkout-session", "id": str(session_id)},
        **body,
    }
    return client.post("/transactions", payload, format="json", **headers)


def test_the_token_pins_the_links_amount_currency_session_and_the_link_itself():
    link = PaymentLinkFactory(amount=1800, currency="EUR", country="DE")

    checkout = page_checkout(link)

    claims = _claims(checkout.token)
    assert claims["scopes"] == ["embed"]
    assert claims["embed"] == {"amount": 1800, "currency": "EUR", LINK_CLAIM: str(link.pk)}
    assert claims["checkout_session_id"] == str(checkout.session.pk)
    assert claims["exp"] - claims["iat"] == DEFAULT_EXPIRES_IN
    session = checkout.session
    assert (session.merchant_account_id, session.amount, session.currency) == (link.merchant_account_id, 1800, "EUR")


def test_the_token_is_signed_by_an_embed_only_key_of_the_links_account_the_same_on_every_page():
    link = PaymentLinkFactory()
    other = PaymentLinkFactory(merchant_account=MerchantAccountFactory(id="other"))

    kids = [jwt.get_unverified_header(page_checkout(each).token)["kid"] for each in (link, link, other)]

    assert kids[0] == kids[1] != kids[2]
    key = ApiKey.objects.get(kid=kids[0])
    assert (key.merchant_account_ids, key.roles, key.display_name) == ({"default"}, ["embed"], PAGE_KEY_NAME)
    assert ApiKey.objects.get(kid=kids[2]).merchant_account_ids == {"other"}


def test_a_link_ending_sooner_than_a_session_cuts_the_tokens_life_short():
    link = PaymentLinkFactory(expires_at=timezone.now() + timedelta(minutes=5))

    assert 0 < token_lifetime(link) <= 300
    claims = _claims(page_checkout(link).token)
    assert claims["exp"] <= link.expires_at.timestamp()


def test_the_page_carries_the_token_and_never_a_key(client):
    link = PaymentLinkFactory()

    html = client.get(f"/l/{link.pk}").content.decode()

    token = re.search(r'data-token="([^"]+)"', html).group(1)
    assert _claims(token)["embed"][LINK_CLAIM] == str(link.pk)
    assert "PRIVATE KEY" not in html
    assert f'data-session-id="{_claims(token)["checkout_session_id"]}"' in html


def test_the_pages_token_pays_its_link_once_through_the_transactions_endpoint():
    link = PaymentLinkFactory(intent="capture", external_identifier="invoice-7")
    checkout = page_checkout(link)
    _with_card(checkout.session)

    response = _pay(checkout.token, checkout.session.pk)

    assert response.status_code == 201, response.json()
    txn = Transaction.objects.get(pk=response.json()["id"])
    assert (txn.payment_link_id, txn.status, txn.external_identifier) == (link.pk, "capture_succeeded", "invoice-7")
    link.refresh_from_db()
    assert (link.status, link.transaction_id) == (PaymentLinkStatus.COMPLETED, txn.pk)


def test_gift_cards_covering_the_link_pay_it_alone_and_the_sessions_card_is_never_asked_for():
    link = PaymentLinkFactory(amount=1299, intent="capture")
    checkout = page_checkout(link)
    gift_card = IssuedGiftCardFactory(merchant_account=link.merchant_account, amount=2000)
    redeem = [{"number": gift_card.number, "pin": gift_card.pin, "amount": 1299}]

    response = _pay(checkout.token, checkout.session.pk, payment_method=None, gift_cards=redeem)

    assert response.status_code == 201, response.json()
    txn = Transaction.objects.get(pk=response.json()["id"])
    assert (txn.payment_link_id, txn.status, txn.checkout_session_id) == (link.pk, "capture_succeeded", None)
    gift_card.refresh_from_db()
    assert gift_card.balance == 701
    link.refresh_from_db()
    assert (link.status, link.transaction_id) == (PaymentLinkStatus.COMPLETED, txn.pk)


def test_gift_cards_short_of_the_link_without_the_card_leave_it_payable():
    link = PaymentLinkFactory(amount=1299)
    checkout = page_checkout(link)
    gift_card = IssuedGiftCardFactory(merchant_account=link.merchant_account, amount=2000)
    redeem = [{"number": gift_card.number, "pin": gift_card.pin, "amount": 500}]

    response = _pay(checkout.token, checkout.session.pk, payment_method=None, gift_cards=redeem)

    assert response.status_code == 400
    assert response.json()["details"][0]["pointer"] == "/payment_method"
    assert not Transaction.objects.exists()
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.ACTIVE


def test_the_links_order_decides_the_intent_not_the_body():
    link = PaymentLinkFactory(intent="authorize")
    checkout = page_checkout(link)
    _with_card(checkout.session)

    response = _pay(checkout.token, checkout.session.pk)  # Embed always asks to capture

    assert response.json()["status"] == "authorization_succeeded"


def test_a_retry_with_the_same_key_answers_the_same_payment():
    link = PaymentLinkFactory()
    checkout = page_checkout(link)
    _with_card(checkout.session)

    first = _pay(checkout.token, checkout.session.pk, key="retry-1")
    again = _pay(checkout.token, checkout.session.pk, key="retry-1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json()["id"] == again.json()["id"]
    assert Transaction.objects.filter(payment_link_id=link.pk).count() == 1


def test_a_declined_card_leaves_the_link_payable_by_the_next_try():
    link = PaymentLinkFactory()
    checkout = page_checkout(link)
    _with_card(checkout.session, DECLINED)

    response = _pay(checkout.token, checkout.session.pk)

    assert response.json()["status"] == "authorization_declined"
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.ACTIVE


@pytest.mark.parametrize("state", ["completed", "processing", "expired", "lapsed"])
def test_a_link_no_longer_payable_refuses_the_pages_token_with_a_clear_409(state):
    link = PaymentLinkFactory()
    checkout = page_checkout(link)
    _with_card(checkout.session)
    changes = {
        "completed": {"status": PaymentLinkStatus.COMPLETED, "transaction_id": uuid.uuid4()},
        "processing": {"status": PaymentLinkStatus.PROCESSING, "transaction_id": uuid.uuid4()},
        "expired": {"status": PaymentLinkStatus.EXPIRED},
        "lapsed": {"expires_at": timezone.now() - timedelta(seconds=1)},
    }[state]
    PaymentLink.objects.filter(pk=link.pk).update(**changes)

    response = _pay(checkout.token, checkout.session.pk)

    assert response.status_code == 409
    assert response.json()["code"] == "duplicate_record"
    assert "payment link" in response.json()["message"]
    assert not Transaction.objects.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"amount": 1}, "amount"),
        ({"currency": "EUR"}, "currency"),
        ({"payment_method": {"method": "checkout-session", "id": "00000000-0000-4000-8000-000000000000"}}, "session"),
        ({"payment_method": {"method": "card", "number": VISA, "expiration_date": "12/39"}}, "session"),
    ],
    ids=["another-amount", "another-currency", "another-session", "a-card-of-its-own"],
)
def test_the_pages_token_pays_nothing_but_its_link_with_its_session(body, message):
    link = PaymentLinkFactory()
    checkout = page_checkout(link)
    _with_card(checkout.session)

    response = _pay(checkout.token, checkout.session.pk, **body)

    assert response.status_code == 403
    assert message in response.json()["message"]
    assert not Transaction.objects.exists()
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.ACTIVE


@pytest.mark.parametrize("path", ["/payment-links", "/transactions", "/buyers", "/payment-services"])
def test_the_pages_token_reads_nothing_of_the_merchant(path):
    checkout = page_checkout(PaymentLinkFactory())

    response = APIClient().get(path, HTTP_AUTHORIZATION=f"Bearer {checkout.token}")

    assert response.status_code == 403


def test_a_merchant_who_disables_the_pages_key_stops_the_pages_payments(client):
    link = PaymentLinkFactory()
    kid = jwt.get_unverified_header(page_checkout(link).token)["kid"]
    ApiKey.objects.filter(kid=kid).update(is_active=False)
    CheckoutSession.objects.all().delete()

    html = client.get(f"/l/{link.pk}").content.decode()

    assert "cannot be paid here at the moment" in html
    assert 'id="checkout"' not in html
    assert not CheckoutSession.objects.exists()


def test_every_view_of_a_link_shares_one_budget_of_attempts(settings):
    settings.RATELIMIT_EMBED = "2/m"
    caches["ratelimit"].clear()
    link = PaymentLinkFactory()
    views = [page_checkout(link) for _ in range(3)]
    for view in views:
        _with_card(view.session, DECLINED)

    statuses = [_pay(view.token, view.session.pk).status_code for view in views]

    assert statuses == [201, 201, 429]  # a reload is no fresh set of card attempts
    assert len({_claims(view.token)["jti"] for view in views}) == 1
