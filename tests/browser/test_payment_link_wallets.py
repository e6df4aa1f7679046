"""Paying a payment link with Apple Pay on its page, on a phone: the account's wallets registered for the page's
domain, the suite's stand-in for the browser's wallet (tests/browser/test_embed_wallets.py), Apple's merchant
validation through its stand-in, and the link completed by the wallet's payment. The screenshots are in
test-output/."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from paymentlinks.models import PaymentLinkStatus
from paymentlinks.tests.factories import PaymentLinkFactory
from tests.browser.conftest import DESK_SIZES, WALLET_SHOP_HOST
from tests.browser.test_embed_wallets import stand_in, wallet_calls, wallet_shop
from tests.browser.test_payment_link_page import fits_the_width, open_link, receipt_rows, transactions_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["wallet_shop"]  # the fixture, used by name


@pytest.mark.parametrize("sized_page", [DESK_SIZES["phone"]], indirect=True, ids=["phone"])
def test_a_buyer_pays_a_link_with_apple_pay_on_a_phone(
    demo_shop, wallet_shop, sized_page, settings, private_key_pem, output_dir: Path
):
    # The page is this server's own, at the name Apple's wallet domain was registered for; its card fields too.
    shop = SimpleNamespace(api_origin=wallet_shop.url.removesuffix("/demo/checkout/"))
    settings.SECURE_FIELDS_ORIGIN = shop.api_origin
    link = PaymentLinkFactory(
        merchant_account=demo_shop.merchant_account,
        amount=4200,
        currency="USD",
        country="US",
        intent="capture",
        merchant_name="ACME Bakery",
        cart_items=[{"name": "Wedding cake", "quantity": 1, "unit_amount": 4200}],
    )
    page = sized_page
    stand_in(page, apple=wallet_shop.tokens.apple(amount=4200), url=wallet_shop.apple.url)
    checkout = open_link(page, shop, link)
    expect(checkout).to_have_attribute("data-wallets", "applepay")
    button = page.get_by_role("button", name="Pay with Apple Pay")
    expect(button).to_be_visible()
    assert fits_the_width(page)
    page.screenshot(path=output_dir / "payment-link-applepay-390x844.png", full_page=True)

    button.click()

    expect(page.locator("#receipt")).to_be_visible()
    expect(page.get_by_role("heading", name="Receipt")).to_be_focused()
    (created,) = wallet_calls(page, "apple:new")
    # Apple's sheet: the link's amount, and the name the account's Apple Pay wallet registered (payment-options).
    assert created["request"]["total"] == {"label": "Acme Shop", "amount": "42.00"}
    (asked,) = wallet_shop.apple.received
    assert asked["body"]["initiativeContext"] == WALLET_SHOP_HOST
    assert wallet_calls(page, "apple:complete") == [{"call": "apple:complete", "status": 0}]
    rows = receipt_rows(page)
    assert (rows["Amount paid"], rows["Paid with"]) == ("$42.00", "Apple Pay (Visa ending in 1111)")
    assert fits_the_width(page)
    page.screenshot(path=output_dir / "payment-link-applepay-receipt-390x844.png", full_page=True)
    [transaction] = transactions_of(link, private_key_pem)
    assert (transaction["status"], transaction["payment_method"]["method"]) == ("capture_succeeded", "applepay")
    link.refresh_from_db()
    assert (link.status, str(link.transaction_id)) == (PaymentLinkStatus.COMPLETED, transaction["id"])
