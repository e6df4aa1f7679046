"""Stripe's own 3-D Secure in headless Chromium: the approval page loads localstripe's stand-in for Stripe.js, whose
`confirmCardPayment` opens its modal ("Complete authentication" / "Fail authentication") exactly where real Stripe.js
opens the issuer's check; the buyer ends at the merchant's `redirect_url` with the status Stripe's PaymentIntent
decided. Screens at desktop and phone width are saved under test-output/. docs/three-d-secure.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from gr4vy import Gr4vy, auth
from playwright.sync_api import Page, expect

from paymentservices.processors.stripe.tests.mock import FakeStripe, localstripe
from paymentservices.processors.tests.overrides import override_processor
from transactions.models import Transaction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECRET = "sk_test_stripe_browser_0123"
PUBLISHABLE = "pk_test_stripe_browser_0123"
AUTHENTICATE = {"method": "card", "number": "4000002760003184", "expiration_date": "12/34", "security_code": "123"}


@pytest.fixture
def fake(settings) -> Iterator[FakeStripe]:
    with localstripe() as running:
        override_processor(
            settings, "stripe", API_BASE=running.url, TIMEOUT_SECONDS=5, JS_URL=f"{running.url}/js.stripe.com/v3/"
        )
        yield running


@pytest.fixture
def sdk(demo_shop, private_key_pem) -> Iterator[Gr4vy]:
    client = Gr4vy(
        server_url=demo_shop.api_origin,
        bearer_auth=auth.with_token(private_key_pem),
        merchant_account_id="default",
    )
    yield client
    client.sdk_configuration.client.close()


def waiting_payment(sdk: Gr4vy, demo_shop) -> tuple[str, str, str]:
    """A Stripe payment waiting for the buyer: (transaction id, approval_url, redirect_url)."""
    service = sdk.payment_services.create(
        display_name="Stripe",
        payment_service_definition_id="stripe-card",
        fields=[{"key": "secret_key", "value": SECRET}, {"key": "publishable_key", "value": PUBLISHABLE}],
        accepted_currencies=["EUR"],
        accepted_countries=["DE"],
    )
    sdk.payment_services.update(payment_service_id=service.id, position=1)
    redirect_url = f"{demo_shop.page_origin}/healthz?order=42"
    created = sdk.transactions.create(
        amount=4200, currency="EUR", payment_method={**AUTHENTICATE, "redirect_url": redirect_url}
    )
    assert created.status == "buyer_approval_pending"
    return created.id, created.payment_method.approval_url, redirect_url


def returned_status(page: Page, redirect_url: str, transaction_id: str) -> str:
    page.wait_for_url(f"{redirect_url.split('?')[0]}?*")
    query = parse_qs(urlsplit(page.url).query)
    assert (query["order"], query["transaction_id"]) == (["42"], [transaction_id])
    return query["transaction_status"][0]


@pytest.mark.parametrize(
    ("button", "status"),
    [("Complete authentication", "authorization_succeeded"), ("Fail authentication", "authorization_declined")],
    ids=["complete", "fail"],
)
def test_the_buyer_authenticates_with_stripe_js_and_returns_to_the_shop(
    demo_shop, fake, sdk, browser_page, output_dir, button, status
):
    transaction_id, approval_url, redirect_url = waiting_payment(sdk, demo_shop)
    errors: list[str] = []
    browser_page.on("pageerror", lambda error: errors.append(str(error)))
    browser_page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" or "Content-Security-Policy" in message.text
            else None
        ),
    )

    browser_page.goto(approval_url)
    expect(browser_page.get_by_text("€42.00")).to_be_visible()
    modal = browser_page.get_by_role("button", name=button)
    expect(modal).to_be_visible()
    if status == "authorization_succeeded":
        browser_page.screenshot(path=output_dir / "stripe-3ds-desktop.png", full_page=True)
    modal.click()

    assert returned_status(browser_page, redirect_url, transaction_id) == status
    assert Transaction.objects.get(pk=transaction_id).status == status
    assert errors == []


def test_the_page_at_phone_width(demo_shop, fake, sdk, phone_page, output_dir):
    _, approval_url, _ = waiting_payment(sdk, demo_shop)

    phone_page.goto(approval_url)
    expect(phone_page.get_by_role("button", name="Complete authentication")).to_be_visible()
    phone_page.screenshot(path=output_dir / "stripe-3ds-phone.png", full_page=True)

    # Our page fits; the stand-in's modal is a fixed 346 px box of localstripe's (real Stripe.js fills the screen).
    right_edge, inner_width = phone_page.evaluate(
        "[document.querySelector('main').getBoundingClientRect().right, window.innerWidth]"
    )
    assert right_edge <= inner_width
