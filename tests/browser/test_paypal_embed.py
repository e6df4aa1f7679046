"""PayPal in Embed, in headless Chromium at a laptop's and a phone's size: the button the checkout's payment options
offer, the transaction Embed makes with `{"method": "paypal"}`, the buyer sent to PayPal in the whole tab and back to
the page, which reads the payment with the token its tab kept and shows the receipt. PayPal is the suite's mock
(paymentservices/processors/paypal/tests/mock.py: Prism validating every request PayPal's library sends), whose
approval page approves at once and sends the buyer back as PayPal does. Waits are on attributes and text, never on
time; screenshots in test-output/.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from giftcards.services import issued_card_create
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.tests.factories import PaymentLinkFactory
from paymentservices.processors.paypal.tests.mock import GUIDE_ANSWERS, PayPalMock
from paymentservices.tests.factories import PaymentServiceFactory
from tests.browser.conftest import _new_page
from tests.browser.test_checkout import apply_gift_card
from tests.browser.test_payment_link_page import fits_the_width, page_url, receipt_rows, transactions_of
from transactions.models import Transaction, TransactionStatus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def paypal(paypal_api) -> Iterator[PayPalMock]:
    """The mock answering a whole payment, and approving at its own approval page as the buyer's PayPal."""
    for pattern, example in GUIDE_ANSWERS.items():
        paypal_api.answer(pattern, example=example)
    paypal_api.approves_here = True
    yield paypal_api
    paypal_api.approves_here = False


@pytest.fixture
def paypal_service(demo_shop, paypal):
    return PaymentServiceFactory(
        merchant_account=demo_shop.merchant_account,
        paypal=True,
        display_name="PayPal",
        accepted_currencies=["USD"],
        accepted_countries=["US"],
    )


def paypal_button(page: Page):
    return page.get_by_role("button", name="Pay with PayPal")


@pytest.mark.parametrize("sized", ["laptop", "phone"], indirect=True)
def test_a_buyer_pays_with_paypal_in_embed_and_comes_back_to_the_receipt(
    demo_shop, paypal_service, paypal, sized, output_dir
):
    page, size = sized
    page.goto(demo_shop.url)
    checkout = page.locator("#checkout")
    expect(checkout).to_have_attribute("data-state", "ready")
    button = paypal_button(page)
    expect(button).to_be_visible()
    expect(page.get_by_text("or pay by card")).to_be_visible()
    assert fits_the_width(page)
    page.screenshot(path=output_dir / f"embed-paypal-{size}.png", full_page=True)

    # The keyboard alone: the button is reached and pressed like any other.
    button.focus()
    expect(button).to_be_focused()
    page.keyboard.press("Enter")

    # Away at PayPal and back on the shop's page, which the server sent the buyer to once PayPal authorized it.
    expect(checkout).to_have_attribute("data-state", "approved")
    page.wait_for_url(f"{demo_shop.url}")  # the return's parameters are taken off the address
    expect(page.locator(".gr4vy-embed__outcome-title")).to_have_text("Payment approved")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_be_focused()
    result = page.locator("#demo-result")
    expect(result).to_have_attribute("data-status", "authorization_succeeded")
    txn = Transaction.objects.get()
    assert (txn.method, txn.status, txn.amount, txn.currency) == (
        "paypal",
        TransactionStatus.AUTHORIZATION_SUCCEEDED,
        1299,
        "USD",
    )
    assert txn.payment_service_id == paypal_service.pk
    expect(checkout).to_have_attribute("data-transaction-id", str(txn.pk))
    expect(result).to_contain_text("Paid with")
    expect(result).to_contain_text("PayPal")
    [opened] = paypal.calls("POST", "/v2/checkout/orders")
    assert opened.body["purchase_units"][0]["amount"] == {"currency_code": "USD", "value": "12.99"}
    assert fits_the_width(page)
    page.screenshot(path=output_dir / f"embed-paypal-receipt-{size}.png", full_page=True)

    # A reload is no second return: a fresh checkout, nothing read or paid again.
    page.reload()
    expect(checkout).to_have_attribute("data-state", "ready")
    assert Transaction.objects.count() == 1


def test_no_paypal_service_no_paypal_button(demo_shop, browser_page):
    page = browser_page
    page.goto(demo_shop.url)
    expect(page.locator("#checkout")).to_have_attribute("data-state", "ready")
    expect(page.locator(".gr4vy-embed__paypal-option")).to_be_hidden()


def test_paypal_is_not_offered_beside_gift_cards_it_cannot_take(demo_shop, paypal_service, browser_page):
    gift_card = issued_card_create(merchant_account=demo_shop.merchant_account, amount=500, currency="USD")
    page = browser_page
    page.goto(demo_shop.url)
    expect(paypal_button(page)).to_be_visible()
    apply_gift_card(page, gift_card)
    expect(page.locator(".gr4vy-embed__remaining")).to_have_text("$7.99")
    expect(paypal_button(page)).to_be_hidden()
    page.get_by_role("button", name=f"Remove gift card ending in {gift_card.number[-4:]}").click()
    expect(paypal_button(page)).to_be_visible()


def test_the_pages_policy_is_unchanged_by_the_paypal_redirect(demo_shop, paypal_service, browser_page):
    """PayPal's page is reached by navigating the tab, which no CSP directive governs: the demo's and the link
    page's policies name no PayPal host."""
    response = browser_page.goto(demo_shop.url)
    policy = response.headers["content-security-policy"]
    assert "127.0.0.1:" in policy
    assert "paypal" not in policy.lower()


@pytest.fixture
def usd_link(demo_shop) -> PaymentLink:
    return PaymentLinkFactory(
        merchant_account=demo_shop.merchant_account,
        amount=2500,
        currency="USD",
        country="US",
        intent="capture",
        merchant_name="ACME Bakery",
        return_url="https://shop.acme.example.com/thanks",
        cart_items=[{"name": "Birthday cake", "quantity": 1, "unit_amount": 2500}],
    )


def test_a_buyer_pays_a_link_with_paypal_on_a_phone(
    demo_shop, paypal_service, paypal, usd_link, chromium, private_key_pem, output_dir
):
    for page in _new_page(chromium, width=390, height=844):
        response = page.goto(page_url(demo_shop, usd_link))
        policy = response.headers["content-security-policy"]
        expect(page.locator("#checkout")).to_have_attribute("data-state", "ready")
        paypal_button(page).click()

        receipt = page.locator("#receipt")
        expect(receipt).to_be_visible()
        expect(page.get_by_role("heading", name="Receipt")).to_be_focused()
        rows = receipt_rows(page)
        [transaction] = transactions_of(usd_link, private_key_pem)
        assert rows["Amount paid"] == "$25.00"
        assert rows["Paid with"].startswith("PayPal")
        assert rows["Payment reference"] == transaction["reconciliation_id"]
        assert (transaction["status"], transaction["payment_method"]["method"]) == ("authorization_succeeded", "paypal")
        usd_link.refresh_from_db()
        assert (usd_link.status, str(usd_link.transaction_id)) == (PaymentLinkStatus.COMPLETED, transaction["id"])
        expect(page.get_by_role("link", name="Return to ACME Bakery")).to_be_visible()
        assert fits_the_width(page)
        assert "paypal" not in policy.lower()
        page.screenshot(path=output_dir / "payment-link-paypal-receipt-390x844.png", full_page=True)
