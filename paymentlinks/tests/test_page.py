"""The page at a link's `url`: the merchant's branding as text and checked URLs only, the cart and the amount, the
link's state, and a content security policy as strict as Embed's."""

from __future__ import annotations

import re
import uuid

import pytest

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
    assert "This payment request is open." in html


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
    assert policy["style-src"] == f"'nonce-{nonce}'"
    assert policy["img-src"] == "https://acme.example.com https://cdn.acme.example.com"
    assert (policy["frame-ancestors"], policy["form-action"], policy["base-uri"]) == ("'none'", "'none'", "'none'")
    assert f'<style nonce="{nonce}">' in response.content.decode()
    assert (response["Cache-Control"], response["Referrer-Policy"]) == ("no-store", "no-referrer")


def test_a_link_without_images_loads_none(client):
    policy = _page(client, PaymentLinkFactory())["Content-Security-Policy"]

    assert "img-src 'none'" in policy


@pytest.mark.parametrize(
    ("trait", "words"),
    [
        ("completed", "This payment request has been paid."),
        ("expired", "This payment request has expired"),
        ("lapsed", "This payment request has expired"),
        ("processing", "A payment of this request is under way."),
    ],
)
def test_a_link_that_is_not_payable_says_why(client, trait, words):
    html = _page(client, PaymentLinkFactory(**{trait: True})).content.decode()

    assert words in html


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
