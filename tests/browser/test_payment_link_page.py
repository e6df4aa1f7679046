"""Paying a payment link on its page, in headless Chromium at a laptop's and a phone's width: Embed on the page with
the token the server minted for the link, Secure Fields framed by this server's own page, the sandbox (with 3-D
Secure), a receipt in the buyer's locale and the way back to the merchant; the keyboard alone; a link paid meanwhile
refused in words. The paying tests at a phone's width, through the sandbox and through Adyen, start where a merchant
starts: the official SDK creates the link over HTTP, and after the buyer pays, the SDK finds it completed and its
transaction from it. Waits are on attributes and text, never on time; the screenshots are in test-output/.
"""

from __future__ import annotations

from typing import Any

import pytest
from gr4vy import Gr4vy, models
from playwright.sync_api import Locator, Page, expect
from rest_framework.test import APIClient

from giftcards.tests.factories import IssuedGiftCardFactory
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.tests.factories import PaymentLinkFactory
from payments.accounts.keys import mint_token
from paymentservices.models import PaymentService
from paymentservices.services import payment_service_update
from paymentservices.tests.factories import PaymentServiceFactory
from tests.browser.conftest import DESK_SIZES
from tests.browser.test_checkout import APPROVED_CARD, EXPIRY, SECURITY_CODE, apply_gift_card, enter_card, field
from tests.browser.test_three_d_secure import CHALLENGE_Y, challenge_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RETURN_URL = "https://shop.acme.example.com/thanks"
# A link in British English, with a cart and a way back: the API's fields, which are also the model's.
LINK: dict[str, Any] = {
    "amount": 2598,
    "currency": "GBP",
    "country": "GB",
    "intent": "capture",
    "locale": "en-GB",
    "external_identifier": "invoice-2041",
    "merchant_name": "ACME Bakery",
    "merchant_message": "Thank you for your order!",
    "return_url": RETURN_URL,
    "cart_items": [
        {"name": "Sourdough loaf", "quantity": 2, "unit_amount": 650},
        {"name": "Birthday cake", "quantity": 1, "unit_amount": 1298},
    ],
}


@pytest.fixture
def link(demo_shop) -> PaymentLink:
    """The link, of the demo's merchant account, made straight in the database (quicker than over HTTP)."""
    return PaymentLinkFactory(merchant_account=demo_shop.merchant_account, **LINK)


@pytest.fixture
def sdk_link(demo_shop, sdk: Gr4vy) -> PaymentLink:
    """The same link as a merchant's server makes it: with the official SDK, over HTTP. Its `url` is the page."""
    created = sdk.payment_links.create(**LINK)
    assert (created.status, created.url) == ("active", f"{demo_shop.api_origin}/l/{created.id}")
    return PaymentLink.objects.get(pk=created.id)


def paid_as_the_sdk_finds_it(sdk: Gr4vy, link: PaymentLink) -> models.TransactionSummary:
    """The link completed and its one transaction, found from it, both read with the official SDK:
    `GET /payment-links/{id}` and `GET /transactions?payment_link_id=`."""
    assert sdk.payment_links.get(payment_link_id=str(link.pk)).status == "completed"
    [transaction] = sdk.transactions.list(payment_link_id=str(link.pk)).result.items
    link.refresh_from_db()
    assert str(link.transaction_id) == transaction.id
    return transaction


def page_url(shop, link: PaymentLink) -> str:
    # The page is this server's, at the link's own address: the API origin of the two-origin server.
    return f"{shop.api_origin}/l/{link.pk}"


def open_link(page: Page, shop, link: PaymentLink) -> Locator:
    page.goto(page_url(shop, link))
    checkout = page.locator("#checkout")
    expect(checkout).to_have_attribute("data-state", "ready")
    return checkout


def receipt_rows(page: Page) -> dict[str, str]:
    receipt = page.locator("#receipt")
    return dict(zip(receipt.locator("dt").all_inner_texts(), receipt.locator("dd").all_inner_texts(), strict=True))


def transactions_of(link: PaymentLink, private_key_pem: str) -> list[dict]:
    """The link's transactions as the merchant finds them: `GET /transactions?payment_link_id=`."""
    client = APIClient()
    token = mint_token(private_key_pem, scopes=["transactions.read"])
    response = client.get("/transactions", {"payment_link_id": str(link.pk)}, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def fits_the_width(page: Page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.parametrize("sized", list(DESK_SIZES), indirect=True, ids=list(DESK_SIZES))
def test_a_buyer_pays_a_link_and_gets_a_receipt_then_the_way_back(demo_shop, sdk, sdk_link, sized, output_dir):
    page, size = sized
    link = sdk_link
    open_link(page, demo_shop, link)
    expect(page.get_by_role("heading", name="Pay £25.98")).to_be_visible()  # Embed's, in the link's locale
    expect(page.locator("table")).to_contain_text("Sourdough loaf")
    expect(page.locator("#return")).to_be_hidden()
    assert fits_the_width(page)
    page.screenshot(path=output_dir / f"payment-link-pay-{size}.png", full_page=True)

    enter_card(page, APPROVED_CARD)
    page.get_by_role("button", name="Pay £25.98").click()

    receipt = page.locator("#receipt")
    expect(receipt).to_be_visible()
    expect(page.get_by_role("heading", name="Receipt")).to_be_focused()
    transaction = paid_as_the_sdk_finds_it(sdk, link)
    rows = receipt_rows(page)
    assert rows["Amount paid"] == "£25.98"
    assert rows["Paid to"] == "ACME Bakery"
    assert rows["For"] == "2 \u00d7 Sourdough loaf, 1 \u00d7 Birthday cake"  # "2 times Sourdough loaf"
    assert rows["Paid with"] == "Visa ending in 1111"
    assert rows["Payment request"] == str(link.pk)
    assert rows["Your reference"] == "invoice-2041"
    assert rows["Payment reference"] == transaction.reconciliation_id
    expect(page.locator("#payment")).to_be_hidden()
    back = page.get_by_role("link", name="Return to ACME Bakery")
    expect(back).to_be_visible()
    expect(back).to_have_attribute("href", RETURN_URL)
    assert fits_the_width(page)
    page.screenshot(path=output_dir / f"payment-link-receipt-{size}.png", full_page=True)

    assert (transaction.status, transaction.amount, transaction.currency) == ("capture_succeeded", 2598, "GBP")
    page.reload()
    expect(page.locator("#state")).to_have_text("This payment request has been paid. Thank you.")
    expect(page.locator("#checkout")).to_have_count(0)


def tab_until(page: Page, target: Locator, *, limit: int = 25) -> None:
    """Press Tab until `target` (an element, or a frame holding the focus) is the page's active element."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if target.evaluate("element => element === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached {target}")


def test_a_link_is_paid_with_the_keyboard_alone(demo_shop, link, browser_page, private_key_pem, output_dir):
    page = browser_page
    open_link(page, demo_shop, link)

    tab_until(page, page.locator('iframe[data-field="number"]'))
    page.keyboard.type(APPROVED_CARD)
    page.keyboard.press("Tab")
    expect(field(page, "expiry").locator("#sf-input")).to_be_focused()
    page.keyboard.type(EXPIRY)
    page.keyboard.press("Tab")
    expect(field(page, "security_code").locator("#sf-input")).to_be_focused()
    page.keyboard.type(SECURITY_CODE)
    page.keyboard.press("Enter")  # Enter in a card field submits, as in any form

    expect(page.locator("#receipt")).to_be_visible()
    receipt_heading = page.get_by_role("heading", name="Receipt")
    expect(receipt_heading).to_be_focused()
    page.keyboard.press("Tab")
    back = page.get_by_role("link", name="Return to ACME Bakery")
    expect(back).to_be_focused()
    # The focus is drawn: an outline the page's stylesheet gives every focused control.
    assert back.evaluate("element => getComputedStyle(element).outlineStyle") != "none"
    page.screenshot(path=output_dir / "payment-link-keyboard-receipt.png", full_page=True)
    assert [item["status"] for item in transactions_of(link, private_key_pem)] == ["capture_succeeded"]


@pytest.mark.parametrize("sized", ["phone"], indirect=True, ids=["phone"])
def test_a_card_with_3_d_secure_pays_a_link_after_its_challenge(demo_shop, link, sized, private_key_pem, output_dir):
    service = PaymentService.objects.get(merchant_account=demo_shop.merchant_account, definition_id="mock-card")
    payment_service_update(service=service, three_d_secure_enabled=True)
    page, size = sized
    checkout = open_link(page, demo_shop, link)
    enter_card(page, CHALLENGE_Y)
    page.get_by_role("button", name="Pay £25.98").click()
    expect(checkout).to_have_attribute("data-state", "challenge")
    page.screenshot(path=output_dir / f"payment-link-challenge-{size}.png", full_page=True)

    challenge_page(page).get_by_role("button", name="Confirm payment").click()

    expect(page.locator("#receipt")).to_be_visible()
    assert receipt_rows(page)["Paid with"] == "Visa ending in 3220"
    [transaction] = transactions_of(link, private_key_pem)
    assert transaction["status"] == "capture_succeeded"
    # The link records how the challenge ended the next time it is looked at (or by the job).
    page.reload()
    expect(page.locator("#state")).to_have_text("This payment request has been paid. Thank you.")
    link.refresh_from_db()
    assert (link.status, str(link.transaction_id)) == (PaymentLinkStatus.COMPLETED, transaction["id"])


def test_a_link_paid_in_another_tab_meanwhile_is_refused_in_words(demo_shop, link, chromium, browser_page):
    first = browser_page
    second = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-GB").new_page()
    open_link(first, demo_shop, link)
    open_link(second, demo_shop, link)
    enter_card(first, APPROVED_CARD)
    first.get_by_role("button", name="Pay £25.98").click()
    expect(first.locator("#receipt")).to_be_visible()

    enter_card(second, APPROVED_CARD)
    second.get_by_role("button", name="Pay £25.98").click()

    state = second.locator("#state")
    expect(state).to_have_text("This payment link has already been paid.")
    expect(state).to_be_focused()
    expect(second.locator("#payment")).to_be_hidden()
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.COMPLETED
    second.context.close()


def test_a_gift_card_pays_part_of_a_link_and_the_card_the_rest(demo_shop, link, browser_page, private_key_pem):
    gift_card = IssuedGiftCardFactory(merchant_account=demo_shop.merchant_account, amount=1000, currency="GBP")
    page = browser_page
    open_link(page, demo_shop, link)
    apply_gift_card(page, gift_card)
    expect(page.get_by_role("button", name="Pay £15.98")).to_be_visible()
    enter_card(page, APPROVED_CARD)

    page.get_by_role("button", name="Pay £15.98").click()

    expect(page.locator("#receipt")).to_be_visible()
    last4 = gift_card.number[-4:]
    assert receipt_rows(page)["Paid with"] == f"£10.00, gift card ending in {last4}; Visa ending in 1111"
    [transaction] = transactions_of(link, private_key_pem)
    assert transaction["status"] == "capture_succeeded"
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.COMPLETED


@pytest.mark.parametrize("sized_page", [DESK_SIZES["phone"]], indirect=True, ids=["phone"])
def test_a_gift_card_covering_a_link_pays_it_alone_on_a_phone(demo_shop, link, sized_page, private_key_pem, output_dir):
    gift_card = IssuedGiftCardFactory(merchant_account=demo_shop.merchant_account, amount=3000, currency="GBP")
    page = sized_page
    open_link(page, demo_shop, link)
    apply_gift_card(page, gift_card)
    pay = page.get_by_role("button", name="Pay £25.98 with gift cards")
    expect(pay).to_be_visible()
    assert fits_the_width(page)
    page.screenshot(path=output_dir / "payment-link-gift-card-only-390x844.png", full_page=True)

    pay.click()  # no card entered: the gift card pays it all

    expect(page.locator("#receipt")).to_be_visible()
    expect(page.get_by_role("heading", name="Receipt")).to_be_focused()
    last4 = gift_card.number[-4:]
    rows = receipt_rows(page)
    assert (rows["Amount paid"], rows["Paid with"]) == ("£25.98", f"£25.98, gift card ending in {last4}")
    assert fits_the_width(page)
    page.screenshot(path=output_dir / "payment-link-gift-card-only-receipt-390x844.png", full_page=True)
    [transaction] = transactions_of(link, private_key_pem)
    assert (transaction["status"], transaction["payment_method"]) == ("capture_succeeded", None)
    link.refresh_from_db()
    assert (link.status, str(link.transaction_id)) == (PaymentLinkStatus.COMPLETED, transaction["id"])
    gift_card.refresh_from_db()
    assert gift_card.balance == 402


@pytest.fixture
def adyen_service(demo_shop, adyen_mock):
    """An Adyen service first on the account's route for the link's currency, Adyen answering as its contract says."""
    adyen_mock.answer("/payments", example="card-direct")
    adyen_mock.answer("/payments/*/captures", example="capture")
    return PaymentServiceFactory(
        merchant_account=demo_shop.merchant_account,
        adyen=True,
        display_name="Adyen",
        accepted_currencies=["GBP"],
        accepted_countries=["GB"],
        position=1,
    )


@pytest.mark.parametrize("sized", ["phone"], indirect=True, ids=["phone"])
def test_a_buyer_pays_a_link_through_adyen_on_a_phone(
    demo_shop, sdk, sdk_link, adyen_service, adyen_mock, sized, output_dir
):
    page, size = sized
    link = sdk_link
    open_link(page, demo_shop, link)
    enter_card(page, APPROVED_CARD)
    page.get_by_role("button", name="Pay £25.98").click()

    expect(page.get_by_role("heading", name="Receipt")).to_be_focused()
    assert receipt_rows(page)["Paid with"] == "Visa ending in 1111"
    assert fits_the_width(page)
    page.screenshot(path=output_dir / f"payment-link-adyen-receipt-{size}.png", full_page=True)

    # The transaction is found from the link, and it went through Adyen (Prism validated every request it was sent).
    transaction = paid_as_the_sdk_finds_it(sdk, link)
    assert isinstance(transaction.payment_service, models.TransactionPaymentService)
    assert transaction.payment_service.id == str(adyen_service.pk)
    assert (transaction.amount, transaction.currency) == (2598, "GBP")
    assert transaction.status in {"authorization_succeeded", "capture_succeeded"}
    [sent] = [exchange for exchange in adyen_mock.exchanges if exchange.url.split("?")[0].endswith("/payments")]
    assert sent.body["amount"] == {"currency": "GBP", "value": 2598}
    page.reload()
    expect(page.locator("#state")).to_have_text("This payment request has been paid. Thank you.")
