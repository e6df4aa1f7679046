"""The page at a link's `url`: the merchant's branding as text and checked URLs only, the cart and the amount, the
link's state, and a content security policy as strict as Embed's."""

from __future__ import annotations

import re
import uuid

import pytest

from checkout.models import CheckoutSession
from digitalwallets.tests.factories import register
from giftcards.tests.factories import IssuedGiftCardFactory
from paymentlinks.tests.factories import PaymentLinkFactory

pytestmark = pytest.mark.django_db


def _page(client, link):
    return client.get(f"/l/{link.pk}")


def test_the_page_shows_the_merchant_the_cart_and_the_amount(client):
    link = PaymentLinkFactory(
        amount=1299,
        currency="GBP",
        locale="en-GB",
        merchant_name="ACME Inc.",
        merchant_color="#ff5733",
        merchant_message="Thanks!\nSee you soon.",
        merchant_banner_url="https://cdn.acme.example.com/banner.png",
        merchant_terms_and_conditions_url="https://acme.example.com/terms",
        cart_items=[
            {"name": "Widget", "quantity": 2, "unit_amount": 500},
            {"name": "Gadget", "quantity": 1, "unit_amount": 299},
        ],
    )

    response = _page(client, link)

    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="en-GB">' in html
    assert "ACME Inc." in html
    assert "--brand: #ff5733;" in html
    assert "Thanks!\nSee you soon." in html
    assert 'src="https://cdn.acme.example.com/banner.png"' in html
    assert 'href="https://acme.example.com/terms"' in html
    assert re.search(r'data-amount="10\.00" data-currency="GBP">£10\.00<', html)
    assert re.search(r'data-amount="12\.99" data-currency="GBP">£12\.99<', html)
    assert 'id="checkout"' in html


def test_the_merchants_words_are_text_never_markup(client):
    link = PaymentLinkFactory(
        merchant_name="<script>alert(1)</script>", merchant_message='"><img src=x onerror=alert(1)>'
    )

    html = _page(client, link).content.decode()

    assert "<script>alert(1)" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_policy_allows_only_the_pages_own_script_style_and_the_merchants_image_hosts(client):
    link = PaymentLinkFactory(
        merchant_banner_url="https://cdn.acme.example.com/banner.png",
        merchant_favicon_url="https://acme.example.com/favicon.ico",
    )

    response = _page(client, link)

    policy = dict(part.split(" ", 1) for part in response["Content-Security-Policy"].split("; "))
    nonce = re.search(r"'nonce-([^']+)'", policy["style-src"]).group(1)
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == f"'self' 'nonce-{nonce}'"
    assert (policy["frame-src"], policy["connect-src"]) == ("'self'", "'self'")
    assert policy["img-src"] == "'self' https://acme.example.com https://cdn.acme.example.com"
    assert (policy["frame-ancestors"], policy["form-action"], policy["base-uri"]) == ("'none'", "'none'", "'none'")
    assert f'<style nonce="{nonce}">' in response.content.decode()
    assert (response["Cache-Control"], response["Referrer-Policy"]) == ("no-store", "no-referrer")


def test_a_link_without_images_loads_only_this_servers(client):
    policy = _page(client, PaymentLinkFactory())["Content-Security-Policy"]

    assert "img-src 'self';" in policy


@pytest.mark.parametrize(
    ("trait", "words"),
    [
        ("completed", "This payment request has been paid."),
        ("expired", "This payment request has expired"),
        ("lapsed", "This payment request has expired"),
        ("processing", "A payment of this request is already under way. Please do not pay again."),
    ],
)
def test_a_link_that_is_not_payable_says_why_and_offers_no_form(client, trait, words):
    html = _page(client, PaymentLinkFactory(**{trait: True})).content.decode()

    assert words in html
    assert 'id="checkout"' not in html
    assert "embed.js" not in html
    assert not CheckoutSession.objects.exists()


def test_the_return_url_is_offered_once_paid(client):
    link = PaymentLinkFactory(completed=True, return_url="https://acme.example.com/thanks")

    assert 'href="https://acme.example.com/thanks"' in _page(client, link).content.decode()


def test_an_unknown_link_is_the_404_envelope(client):
    response = client.get(f"/l/{uuid.uuid4()}")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_only_get_and_head(client):
    response = client.post(f"/l/{PaymentLinkFactory().pk}")

    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


@pytest.mark.parametrize(("card_currency", "offered"), [("USD", "card gift-card"), ("EUR", "card"), (None, "card")])
def test_gift_cards_are_offered_as_the_accounts_payment_options_say(client, card_currency, offered):
    link = PaymentLinkFactory(currency="USD")
    if card_currency:
        IssuedGiftCardFactory(merchant_account=link.merchant_account, currency=card_currency)

    html = _page(client, link).content.decode()

    assert f'data-methods="{offered}"' in html


def test_the_page_gives_embed_the_google_pay_wallets_merchant_id_and_public_key(client):
    link = PaymentLinkFactory()
    assert 'data-google-pay-merchant-id=""' in _page(client, link).content.decode()  # no wallet: no Google Pay
    wallet = register(
        link.merchant_account, provider="google", extra_configuration={"merchant_id": "12345678901234567890"}
    )

    page = _page(client, link).content.decode()

    assert 'data-google-pay-merchant-id="12345678901234567890"' in page
    assert f'data-google-pay-public-key="{wallet.keys.get().public_key}"' in page
