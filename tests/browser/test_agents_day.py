"""An agent's day on the desk in headless Chromium, at a laptop's (1280x800) and a phone's (390x844) size: find a
payment from the customer's email, refund part of it, answer "why was I declined", and read the buyer's profile.
No page scrolls sideways; each screen lands in `test-output/` to be looked at.
"""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_support_desk import _log_in, desk  # noqa: F401 - the desk fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _looked_at(page: Page, output_dir, name: str, size: str) -> None:
    page.screenshot(path=output_dir / f"agents-day-{name}-{size}.png", full_page=True)
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"{name} at {size}: {scroll_width}px wide in {inner_width}px"


def test_an_agents_day(desk, sized, output_dir):  # noqa: F811 - the fixture imported above
    page, size = sized
    _log_in(page, desk, "payments-operator")
    _looked_at(page, output_dir, "start", size)

    # "I paid and want part of it back": find the payment from the customer's email.
    page.fill("#desk-q", "buyer355@example.com")
    page.press("#desk-q", "Enter")
    results = page.locator("#desk-results")
    expect(results.locator("[data-group=transactions] li")).to_have_count(2)
    _looked_at(page, output_dir, "search-email", size)

    page.goto(f"{desk.origin}/admin/transactions/transaction/?q=buyer355%40example.com")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    _looked_at(page, output_dir, "transactions-by-email", size)

    page.goto(f"{desk.origin}/admin/transactions/transaction/{desk.paid.pk}/change/")
    expect(page.locator("#timeline")).to_contain_text("capture succeeded")
    _looked_at(page, output_dir, "payment", size)

    page.click("a.transaction-action[data-action=refund]")
    expect(page.locator(".action-promise")).to_contain_text("Give back up to USD 120.00")
    page.fill("#id_amount", "20.00")
    page.fill("#id_reason", "One of two items returned")
    _looked_at(page, output_dir, "refund-form", size)
    page.click("input[type=submit][value=Refund]")
    expect(page.locator(".messagelist")).to_contain_text("Refund: USD 20.00 succeeded.")
    _looked_at(page, output_dir, "refunded", size)

    # "Why was I declined?": the declined payment says why, beside its label.
    page.goto(f"{desk.origin}/admin/transactions/transaction/{desk.declined.pk}/change/")
    expect(page.locator("body")).to_contain_text("The card's bank declined the payment.")
    expect(page.locator("body")).to_contain_text("Ask the customer to contact their bank, or to use another card.")
    expect(page.locator("body")).to_contain_text("issuer_decline")  # the code the merchant's systems see, last
    _looked_at(page, output_dir, "declined", size)

    page.goto(f"{desk.origin}/admin/buyers/buyer/{desk.paid.buyer_id}/profile/")
    expect(page.locator("[data-pivot=transactions]")).to_contain_text("Partly refunded")
    _looked_at(page, output_dir, "profile", size)

    for path in ("buyers/buyer/", "transactions/refund/", "paymentmethods/paymentmethod/", "giftcards/giftcard/"):
        page.goto(f"{desk.origin}/admin/{path}")
        expect(page.locator("#changelist")).to_be_visible()
        _looked_at(page, output_dir, path.strip("/").replace("/", "-"), size)
