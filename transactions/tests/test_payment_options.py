"""`POST /payment-options`: what a checkout can offer, who may ask, and the request fields honoured or refused."""

import pytest

from digitalwallets.models import DigitalWallet
from digitalwallets.tests.factories import register
from giftcards.models import IssuedGiftCard
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.tests.assertions import assert_error
from paymentservices.models import PaymentService
from paymentservices.processors import processor_get
from paymentservices.tests.factories import PaymentServiceFactory
from tests.conformance.document import validate

pytestmark = pytest.mark.django_db

CARD = {
    "type": "payment-option",
    "method": "card",
    "mode": "card",
    "label": "Card",
    "icon_url": None,
    "can_store_payment_method": True,
    "can_delay_capture": True,
    "context": None,
}
GIFT_CARD = {
    **CARD,
    "method": "gift-card",
    "mode": "gift-card",
    "label": "Gift card",
    "can_store_payment_method": False,
}


PAYPAL = {**CARD, "method": "paypal", "mode": "redirect", "label": "PayPal", "can_store_payment_method": False}


@pytest.fixture
def reader(api_client, merchant_account):
    return api_client(scopes=["payment-options.read"])


def _options(client, **body):
    return client.post("/payment-options", body, format="json")


def _methods(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["method"] for item in response.json()["items"]]


def test_a_card_is_always_offered(reader):
    response = _options(reader, amount=1299, currency="USD", country="US", locale="en")

    assert response.status_code == 200
    assert response.json() == {"items": [CARD]}


def test_an_empty_body_asks_about_any_checkout(reader):
    assert _methods(_options(reader)) == ["card"]


def test_gift_cards_are_offered_when_the_program_has_a_card_in_the_currency(reader, merchant_account):
    IssuedGiftCardFactory(merchant_account=merchant_account, currency="USD")

    assert _options(reader, amount=1299, currency="USD").json()["items"] == [CARD, GIFT_CARD]
    assert _methods(_options(reader, amount=1299, currency="EUR")) == ["card"]
    assert _methods(_options(reader, amount=1299)) == ["card", "gift-card"]


def _spent(card: IssuedGiftCard) -> None:
    IssuedGiftCard.objects.filter(pk=card.pk).update(balance=0)  # as redemptions would leave it


@pytest.mark.parametrize(
    ("card", "then"),
    [({"status": "inactive"}, None), ({"expired": True}, None), ({}, _spent)],
    ids=["inactive", "expired", "spent"],
)
def test_no_gift_cards_when_no_program_card_could_pay(reader, merchant_account, card, then):
    issued = IssuedGiftCardFactory(merchant_account=merchant_account, currency="USD", **card)
    if then:
        then(issued)

    assert _methods(_options(reader, amount=1299, currency="USD")) == ["card"]


def test_another_accounts_program_does_not_count(reader, other_merchant_account):
    IssuedGiftCardFactory(merchant_account=other_merchant_account, currency="USD")

    assert _methods(_options(reader, amount=1299, currency="USD")) == ["card"]


def test_nothing_to_pay_offers_no_gift_card(reader, merchant_account):
    IssuedGiftCardFactory(merchant_account=merchant_account, currency="USD")

    assert _methods(_options(reader, amount=0, currency="USD")) == ["card"]


def test_paypal_is_offered_where_an_active_paypal_service_takes_the_currency_and_country(reader, merchant_account):
    PaymentServiceFactory(paypal=True, accepted_currencies=["USD"], accepted_countries=["US"])
    PaymentServiceFactory(paypal=True, accepted_currencies=["GBP"], accepted_countries=["GB"], active=False)

    offered = _options(reader, amount=100, currency="USD", country="US")
    assert offered.json()["items"] == [CARD, PAYPAL]
    assert _methods(_options(reader, amount=100, currency="USD")) == ["card", "paypal"]
    assert _methods(_options(reader, amount=100, currency="USD", country="DE")) == ["card"]
    assert _methods(_options(reader, amount=100, currency="GBP")) == ["card"]  # its service is not active
    assert _methods(_options(reader, amount=100)) == ["card"]  # no currency: none can be said to take it
    assert _methods(_options(reader, amount=0, currency="USD")) == ["card"]


def test_the_answer_is_three_queries(reader, merchant_account, django_assert_max_num_queries, settings):
    settings.API_KEY_CACHE_SECONDS = 3600
    _options(reader)  # warms the key and account caches

    # The account's active payment services (PayPal's), its digital wallets, and the gift card program.
    with django_assert_max_num_queries(3):
        assert _options(reader, amount=100, currency="USD").status_code == 200


BAD_INPUT = [
    ({"amount": -1}, "/amount"),
    ({"amount": 100_000_000}, "/amount"),
    ({"amount": "12"}, "/amount"),
    ({"amount": 1.5}, "/amount"),
    ({"currency": "usd"}, "/currency"),
    ({"currency": "XYZ"}, "/currency"),
    ({"country": "XX"}, "/country"),
    ({"locale": ""}, "/locale"),
    ({"locale": "x" * 51}, "/locale"),
    ({"locale": 5}, "/locale"),
    ({"metadata": {"cohort": "a"}}, "/metadata"),
    ({"cart_items": [{"name": "Book", "quantity": 1, "unit_amount": 100}]}, "/cart_items"),
    ({"bogus": 1}, "/bogus"),
]


@pytest.mark.parametrize(("body", "pointer"), BAD_INPUT, ids=[pointer for _, pointer in BAD_INPUT])
def test_bad_or_unsupported_input_is_400_naming_the_field(reader, body, pointer):
    assert_error(_options(reader, **body), 400, pointer, location="body")


def test_fields_that_ask_for_nothing_pass(reader):
    assert _methods(_options(reader, metadata=None, cart_items=None, amount=None, currency=None)) == ["card"]


def test_a_body_that_is_not_an_object_is_400(reader):
    assert_error(reader.post("/payment-options", [1], format="json"), 400)


@pytest.mark.parametrize(
    ("scopes", "status"),
    [
        (["payment-options.read"], 200),
        (["*.read"], 200),
        (["embed"], 200),
        (["payment-options.write"], 403),
        (["transactions.read", "transactions.write", "buyers.read"], 403),
    ],
)
def test_scopes(api_client, merchant_account, scopes, status):
    client = api_client(scopes=scopes, embed={"amount": 1299, "currency": "USD"})

    assert _options(client, amount=1299, currency="USD").status_code == status


def test_no_token_is_401(client):
    assert_error(client.post("/payment-options", {}, format="json"), 401)


def test_an_embed_token_answers_for_its_pinned_checkout(api_client, merchant_account):
    IssuedGiftCardFactory(merchant_account=merchant_account, currency="EUR")
    embed = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "EUR"})

    assert _methods(_options(embed)) == ["card", "gift-card"]  # the pinned currency, though the body has none


@pytest.mark.parametrize("body", [{"amount": 1}, {"currency": "USD"}], ids=["amount", "currency"])
def test_an_embed_token_cannot_ask_about_another_checkout(api_client, merchant_account, body):
    embed = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "EUR"})

    assert_error(_options(embed, **body), 403)


def test_embed_calls_are_rate_limited_per_token(api_client, merchant_account, settings):
    from django.core.cache import caches

    settings.RATELIMIT_EMBED = "2/m"
    caches["ratelimit"].clear()
    embed = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "EUR"})
    server = api_client(scopes=["payment-options.read"])

    statuses = [_options(embed).status_code for _ in range(3)]

    assert statuses == [200, 200, 429]
    assert all(_options(server).status_code == 200 for _ in range(3))  # server tokens are never limited


# Every scheme the sandbox takes (all the vault tells apart) that the wallet carries; the name the wallet was
# registered with (register()'s "Acme Shop").
APPLE_PAY = {
    **CARD,
    "method": "applepay",
    "mode": "applepay",
    "label": "Apple Pay",
    "can_store_payment_method": False,
    "context": {
        "merchant_name": "Acme Shop",
        "supported_schemes": ["amex", "discover", "jcb", "maestro", "mastercard", "unionpay", "visa"],
    },
}
GOOGLE_PAY = {
    **APPLE_PAY,
    "method": "googlepay",
    "mode": "googlepay",
    "label": "Google Pay",
    "context": {
        "merchant_name": "Acme Shop",
        "supported_schemes": ["amex", "discover", "jcb", "maestro", "mastercard", "visa"],
    },
}


def test_wallets_are_offered_where_registered_and_a_processor_takes_their_tokens(reader, merchant_account):
    # The account's sandbox takes network tokens in every currency; a registered wallet with its merchant ID pays.
    register(merchant_account, provider="google", extra_configuration={"merchant_id": "12345678901234567890"})
    register(merchant_account, provider="apple")
    assert _methods(_options(reader, amount=100, currency="USD")) == ["card", "googlepay"]  # Apple's: no merchant ID

    DigitalWallet.objects.filter(provider="apple").update(merchant_identifier="merchant.com.example.shop")

    offered = _options(reader, amount=100, currency="USD")
    assert offered.json()["items"] == [CARD, APPLE_PAY, GOOGLE_PAY]
    validate("/payment-options", "POST", offered)  # each context one of upstream's
    assert _methods(_options(reader, amount=100)) == ["card"]  # no currency: none can be said to take it
    assert _methods(_options(reader, amount=0, currency="USD")) == ["card"]


def test_no_wallet_without_a_processor_that_takes_network_tokens(reader, merchant_account):
    register(merchant_account, provider="google", extra_configuration={"merchant_id": "12345678901234567890"})
    PaymentService.objects.filter(merchant_account=merchant_account).update(active=False)
    PaymentServiceFactory(merchant_account=merchant_account, display_name="Stripe")  # takes cards, not device tokens

    assert _methods(_options(reader, amount=100, currency="USD")) == ["card"]


def test_a_wallet_offers_the_name_buyers_see_and_the_schemes_its_processors_take(reader, merchant_account, monkeypatch):
    register(
        merchant_account,
        provider="google",
        merchant_display_name="Acme",
        extra_configuration={"merchant_id": "12345678901234567890"},
    )
    # The processors routed to take Visa, Diners Club and UnionPay: Google Pay carries only Visa of them.
    monkeypatch.setattr(processor_get("mock-card"), "card_schemes", frozenset({"visa", "diners-club", "unionpay"}))

    (_, google) = _options(reader, amount=100, currency="USD").json()["items"]
    assert google["context"] == {"merchant_name": "Acme", "supported_schemes": ["visa"]}

    monkeypatch.setattr(processor_get("mock-card"), "card_schemes", frozenset({"diners-club"}))
    assert _methods(_options(reader, amount=100, currency="USD")) == ["card"]  # no scheme in common: no button


def test_another_accounts_wallet_does_not_count(reader, other_merchant_account):
    register(other_merchant_account, provider="google", extra_configuration={"merchant_id": "12345678901234567890"})

    assert _methods(_options(reader, amount=100, currency="USD")) == ["card"]
