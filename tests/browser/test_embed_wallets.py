"""Embed's Apple Pay and Google Pay buttons in headless Chromium, the browser's wallet stood in by the suite's script.

Chromium has neither wallet, so a script run before the page's own (`add_init_script`) plays it: an
`ApplePaySession` that asks for merchant validation and then authorizes with an Apple Pay token, and a
`PaymentRequest` that answers Google Pay's method with a Google Pay token. The tokens are the suite's own, made in the
published formats (EC_v1, ECv2) for the wallets' real keys (`digitalwallets.tests.tokens`); the server opens them and
pays through the demo shop's sandbox. Apple's merchant validation reaches the suite's stand-in for Apple's server over
mutual TLS (`digitalwallets.tests.validation`).

The shop is opened at `shop.localhost` (a wallet's domain needs a dot; Chromium treats the name as loopback, so the
page is still a secure context) and the API at `127.0.0.1`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from digitalwallets.models import DigitalWallet
from digitalwallets.selectors import google_pay_direct_for
from digitalwallets.services import digital_wallet_certificate_upload, digital_wallet_domain_add
from digitalwallets.tests.factories import TestAuthority
from digitalwallets.tests.tokens import GOOGLE_MERCHANT_ID, WalletTokens, wallets_registered
from digitalwallets.tests.validation import SESSION, ValidationServer, serving
from paymentservices.models import PaymentService
from paymentservices.services import payment_service_update
from tests.browser.conftest import WALLET_SHOP_HOST
from tests.browser.test_three_d_secure import CHALLENGE_Y, PHONE, challenge_page
from transactions.models import Transaction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DECLINED_CARD = "4000000000000002"

# Runs in every frame before its own scripts; on the shop's page only, stands in for the browser's wallets and records
# what the checkout asked of them in `window.__wallet.calls`. `%s` is {apple, google, validationURL}: a null token is a
# wallet the browser does not have.
WALLET_STAND_IN = """
(() => {
  if (window.top !== window) return;
  const wallet = %s;
  const calls = [];
  window.__wallet = { calls };
  if (wallet.apple) {
    class ApplePaySession {
      constructor(version, request) {
        calls.push({ call: 'apple:new', version, request });
      }
      static canMakePayments() { return true; }
      begin() {
        setTimeout(() => this.onvalidatemerchant({ validationURL: wallet.validationURL }), 0);
      }
      completeMerchantValidation(merchantSession) {
        calls.push({ call: 'apple:merchant-session', merchantSession });
        setTimeout(() => this.onpaymentauthorized({ payment: { token: wallet.apple } }), 0);
      }
      completePayment(status) { calls.push({ call: 'apple:complete', status }); }
      abort() { calls.push({ call: 'apple:abort' }); }
    }
    ApplePaySession.STATUS_SUCCESS = 0;
    ApplePaySession.STATUS_FAILURE = 1;
    window.ApplePaySession = ApplePaySession;
  }
  if (wallet.google) {
    window.PaymentRequest = class PaymentRequest {
      constructor(methodData, details) {
        this.methodData = methodData;
        this.details = details;
      }
      async canMakePayment() { return this.methodData[0].supportedMethods === 'https://google.com/pay'; }
      async show() {
        calls.push({ call: 'google:show', methodData: this.methodData, details: this.details });
        const paymentMethodData = {
          type: 'CARD',
          description: 'Visa 1111',
          info: { cardNetwork: 'VISA', cardDetails: '1111' },
          tokenizationData: { type: 'DIRECT', token: wallet.google },
        };
        return {
          details: { apiVersion: 2, apiVersionMinor: 0, paymentMethodData },
          complete: async (result) => { calls.push({ call: 'google:complete', result }); },
        };
      }
    };
  }
})();
"""


@dataclass(frozen=True)
class WalletShop:
    """The demo shop at `shop.localhost`, both wallets registered for it, and Apple's stand-in answering."""

    url: str
    tokens: WalletTokens
    apple: ValidationServer


@pytest.fixture
def wallet_shop(demo_shop, settings, tmp_path) -> Iterator[WalletShop]:
    port = demo_shop.page_origin.rsplit(":", 1)[1]
    page_origin = f"http://{WALLET_SHOP_HOST}:{port}"
    account = demo_shop.merchant_account
    account.allowed_origins = [*account.allowed_origins, page_origin]
    account.save(update_fields=["allowed_origins"])
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, WALLET_SHOP_HOST]
    settings.SECURE_FIELDS_ORIGIN = demo_shop.api_origin  # the demo swaps only localhost and 127.0.0.1 by itself

    tokens = wallets_registered(account, settings=settings, directory=tmp_path)
    authority = TestAuthority()
    for wallet in DigitalWallet.objects.filter(merchant_account=account):
        digital_wallet_domain_add(wallet=wallet, domain_name=WALLET_SHOP_HOST)
        if wallet.provider == "apple":
            identity = wallet.keys.get(purpose="apple-merchant-identity")
            digital_wallet_certificate_upload(wallet=wallet, certificate=authority.sign_csr(identity))
    apple_dir = tmp_path / "apple"
    apple_dir.mkdir()
    with serving(authority, apple_dir) as apple:
        yield WalletShop(url=f"{page_origin}/demo/checkout/", tokens=tokens, apple=apple)


def stand_in(page: Page, *, apple: dict[str, Any] | None = None, google: str | None = None, url: str = "") -> None:
    page.add_init_script(WALLET_STAND_IN % json.dumps({"apple": apple, "google": google, "validationURL": url}))


def open_checkout(page: Page, url: str) -> Locator:
    page.goto(url)
    checkout = page.locator("#checkout")
    expect(checkout).to_have_attribute("data-state", "ready")
    return checkout


def wallet_calls(page: Page, name: str) -> list[dict[str, Any]]:
    return [call for call in page.evaluate("window.__wallet.calls") if call["call"] == name]


def receipt(page: Page) -> dict[str, str]:
    result = page.locator("#demo-result")
    expect(result.get_by_role("heading", name="Receipt")).to_be_visible()
    return dict(zip(result.locator("dt").all_inner_texts(), result.locator("dd").all_inner_texts(), strict=True))


def paid(checkout: Locator) -> Transaction:
    return Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))


def pay_to_the_receipt(page: Page, shop: WalletShop, method: str, *, size: str, output_dir: Path) -> Transaction:
    """Open the shop, press the `method` wallet's button (the only one shown) and reach the receipt, screenshots of
    both at `size`; the transaction it made."""
    label = {"applepay": "Apple Pay", "googlepay": "Google Pay"}[method]
    checkout = open_checkout(page, shop.url)
    expect(checkout).to_have_attribute("data-wallets", method)
    button = page.get_by_role("button", name=f"Pay with {label}")
    expect(button).to_be_visible()
    page.screenshot(path=output_dir / f"embed-{method}-{size}.png", full_page=True)

    button.click()

    expect(checkout).to_have_attribute("data-state", "approved")
    rows = receipt(page)
    assert (rows["Card"], rows["Status"]) == (f"{label}, ending in 1111", "Paid")
    page.screenshot(path=output_dir / f"embed-{method}-approved-{size}.png", full_page=True)
    transaction = paid(checkout)
    assert (transaction.amount, transaction.currency, transaction.status) == (1299, "USD", "capture_succeeded")
    assert transaction.method == method
    return transaction


def test_apple_pay_is_validated_by_apple_and_pays_through_the_sandbox(wallet_shop, sized, output_dir: Path):
    page, size = sized
    stand_in(page, apple=wallet_shop.tokens.apple(amount=1299), url=wallet_shop.apple.url)

    pay_to_the_receipt(page, wallet_shop, "applepay", size=size, output_dir=output_dir)

    # Apple's sheet: the amount, the shop's name and the networks the sandbox takes, in Apple's names.
    (created,) = wallet_calls(page, "apple:new")
    assert created["request"]["total"] == {"label": "Acme Shop", "amount": "12.99"}
    assert (created["request"]["currencyCode"], created["request"]["countryCode"]) == ("USD", "US")
    assert {"visa", "masterCard", "amex"} <= set(created["request"]["supportedNetworks"])
    # Merchant validation went to Apple's stand-in for this domain, and Apple's session back to the sheet as it was.
    (asked,) = wallet_shop.apple.received
    assert asked["body"]["initiativeContext"] == WALLET_SHOP_HOST
    assert wallet_calls(page, "apple:merchant-session") == [
        {"call": "apple:merchant-session", "merchantSession": SESSION}
    ]
    assert wallet_calls(page, "apple:complete") == [{"call": "apple:complete", "status": 0}]


def test_a_declined_apple_pay_card_closes_the_sheet_as_failed(wallet_shop, browser_page):
    page = browser_page
    stand_in(page, apple=wallet_shop.tokens.apple(amount=1299, number=DECLINED_CARD), url=wallet_shop.apple.url)
    checkout = open_checkout(page, wallet_shop.url)

    page.get_by_role("button", name="Pay with Apple Pay").click()

    expect(checkout).to_have_attribute("data-state", "declined")
    assert paid(checkout).status == "authorization_declined"
    assert wallet_calls(page, "apple:complete") == [{"call": "apple:complete", "status": 1}]


def test_google_pay_encrypts_to_the_accounts_key_and_pays_through_the_sandbox(wallet_shop, sized, output_dir: Path):
    page, size = sized
    stand_in(page, google=wallet_shop.tokens.google(pan="4111111111111111"))

    pay_to_the_receipt(page, wallet_shop, "googlepay", size=size, output_dir=output_dir)

    (shown,) = wallet_calls(page, "google:show")
    (method,) = shown["methodData"]
    request = method["data"]
    assert method["supportedMethods"] == "https://google.com/pay"
    assert request["merchantInfo"] == {"merchantId": GOOGLE_MERCHANT_ID, "merchantName": "Acme Shop"}
    (card,) = request["allowedPaymentMethods"]
    direct = google_pay_direct_for(merchant_account=wallet_shop.tokens.merchant_account)
    assert card["tokenizationSpecification"] == {
        "type": "DIRECT",
        "parameters": {"protocolVersion": "ECv2", "publicKey": direct.public_key},
    }
    assert {"VISA", "MASTERCARD"} <= set(card["parameters"]["allowedCardNetworks"])
    assert shown["details"]["total"]["amount"] == {"currency": "USD", "value": "12.99"}
    assert wallet_calls(page, "google:complete") == [{"call": "google:complete", "result": "success"}]


@pytest.mark.parametrize("sized_page", [PHONE], indirect=True, ids=["phone"])
def test_a_google_pay_card_challenged_is_read_back_after_the_challenge(wallet_shop, sized_page, output_dir: Path):
    """A `PAN_ONLY` card has no cryptogram, so 3-D Secure runs: the challenge shows in the drop-in and, once passed,
    the drop-in reads the transaction back with its embed token (it pins no buyer, only the checkout session the
    payment keeps) and reaches the receipt."""
    page = sized_page
    account = wallet_shop.tokens.merchant_account
    service = PaymentService.objects.get(merchant_account=account, definition_id="mock-card")
    payment_service_update(service=service, three_d_secure_enabled=True)
    stand_in(page, google=wallet_shop.tokens.google(auth_method="PAN_ONLY", pan=CHALLENGE_Y))
    checkout = open_checkout(page, wallet_shop.url)

    page.get_by_role("button", name="Pay with Google Pay").click()

    expect(checkout).to_have_attribute("data-state", "challenge")
    confirm = challenge_page(page).get_by_role("button", name="Confirm payment")
    expect(confirm).to_be_in_viewport()
    page.screenshot(path=output_dir / "embed-googlepay-challenge-phone.png", full_page=True)
    confirm.click()
    expect(checkout).to_have_attribute("data-state", "approved")
    rows = receipt(page)
    assert (rows["Card"], rows["Status"]) == ("Google Pay, ending in 3220", "Paid")
    page.screenshot(path=output_dir / "embed-googlepay-challenge-approved-phone.png", full_page=True)
    transaction = paid(checkout)
    assert (transaction.method, transaction.status) == ("googlepay", "capture_succeeded")
    assert str(transaction.checkout_session_id) == checkout.get_attribute("data-session-id")


def test_no_wallet_buttons_where_the_browser_offers_no_wallet(wallet_shop, sized, output_dir: Path):
    page, size = sized
    checkout = open_checkout(page, wallet_shop.url)  # Chromium as it is: no Apple Pay, no Google Pay app

    expect(checkout).to_have_attribute("data-wallets", "")
    expect(page.locator(".gr4vy-embed__wallet")).to_have_count(0)
    expect(page.locator(".gr4vy-embed__wallets")).to_be_hidden()
    page.screenshot(path=output_dir / f"embed-no-wallets-{size}.png", full_page=True)


def test_no_wallet_buttons_where_the_account_offers_no_wallet(wallet_shop, browser_page):
    page = browser_page
    stand_in(page, apple=wallet_shop.tokens.apple(amount=1299), google=wallet_shop.tokens.google())
    DigitalWallet.objects.all().delete()
    checkout = open_checkout(page, wallet_shop.url)

    expect(checkout).to_have_attribute("data-wallets", "")
    expect(page.locator(".gr4vy-embed__wallet")).to_have_count(0)
