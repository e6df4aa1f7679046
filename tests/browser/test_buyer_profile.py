"""The buyer profile in headless Chromium at a laptop's (1280x800) and a phone's (390x844) size: an operator finds
the buyer from the customer's email on the start page, reads the profile and starts a refund from its button;
Support reads the same page with no buttons. Nothing scrolls sideways. Screens land in `test-output/`.
"""

import pytest
from playwright.sync_api import Page, expect

from buyers.services import shipping_details_create
from giftcards.tests.factories import GiftCardFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from tests.browser.test_support_desk import Desk, _log_in, desk  # noqa: F401 - the desk fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _furnish(prepared: Desk) -> None:
    """A stored card, a gift card and a shipping address beside the buyer's two payments."""
    buyer, account = prepared.paid.buyer, prepared.paid.merchant_account
    PaymentMethodFactory(merchant_account=account, buyer=buyer)
    GiftCardFactory(merchant_account=account, buyer=buyer)
    address = {"line1": "22 Marina Road", "city": "Lagos", "postal_code": "101001", "country": "NG"}
    shipping_details_create(buyer=buyer, first_name="Felix", last_name="Okafor", address=address)


def _no_sideways_scroll(page: Page, where: str) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"{where}: {scroll_width}px wide in {inner_width}px"


def test_an_operator_reads_the_profile_and_starts_a_refund(desk, sized, output_dir):  # noqa: F811
    page, size = sized
    _furnish(desk)
    _log_in(page, desk, "payments-operator")

    page.fill("#desk-q", "buyer355@example.com")
    page.press("#desk-q", "Enter")
    page.locator("#desk-results [data-group=buyers] a").click()

    expect(page.locator("#buyer-profile h1")).to_have_text("Felix Okafor")
    expect(page.locator("#contact")).to_contain_text("buyer355@example.com")
    expect(page.locator("#addresses address")).to_contain_text("100001 Lagos")
    expect(page.locator("#addresses")).to_contain_text("22 Marina Road, 101001 Lagos, NG")
    payments = page.locator("[data-pivot=transactions]")
    expect(payments.locator("h2")).to_have_text("Transactions (2) all")
    expect(payments).to_contain_text("capture succeeded")
    expect(payments).to_contain_text("authorization declined")
    expect(page.locator("[data-pivot='stored payment methods'] li")).to_have_count(1)
    expect(page.locator("[data-pivot='gift cards'] li")).to_have_count(1)
    timeline = page.locator("[data-pivot='recent events']")
    listed = timeline.locator("li").count()
    expect(timeline.locator("h2")).to_contain_text(f"({listed}")  # the header counts what it lists
    expect(page.locator("[data-action=edit]")).to_have_count(0)
    _no_sideways_scroll(page, f"profile at {size}")
    page.screenshot(path=output_dir / f"desk-buyer-profile-operator-{size}.png", full_page=True)

    payments.locator("a.profile-action[data-action=refund]").click()
    expect(page.locator(".action-promise")).to_contain_text("Give back up to USD 120.00")


def test_support_reads_the_same_profile_without_buttons(desk, sized, output_dir):  # noqa: F811
    page, size = sized
    _furnish(desk)
    _log_in(page, desk, "support")

    page.goto(f"{desk.origin}/admin/buyers/buyer/{desk.paid.buyer_id}/change/")  # an old link: the profile

    expect(page.locator("#buyer-profile h1")).to_have_text("Felix Okafor")
    expect(page.locator("[data-pivot=transactions] li")).to_have_count(2)
    expect(page.locator("#buyer-profile a.button")).to_have_count(0)
    _no_sideways_scroll(page, f"profile at {size}")
    page.screenshot(path=output_dir / f"desk-buyer-profile-support-{size}.png", full_page=True)
