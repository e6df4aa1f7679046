"""The demo checkout and the support desk at a laptop's width (1280 px) and a phone's (390 px): nothing scrolls
sideways and no page logs a console error. Each screen is saved under test-output/ to be looked at.
"""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from disputes.tests.factories import DisputeFactory
from paymentservices.models import PaymentService
from tests.browser.test_checkout import APPROVED_CARD, DECLINED_CARD, enter_card, open_checkout
from tests.browser.test_support_desk import Desk, _log_in, desk  # noqa: F401 - the desk fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = {"laptop": 1280, "phone": 390}


class Screen:
    """One page at one width, collecting console errors and uncaught exceptions."""

    def __init__(self, page: Page, name: str) -> None:
        self.page = page
        self.name = name
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("response", self._response)

    def _response(self, response) -> None:
        if response.status >= 400:
            self.errors.append(f"{response.status} {response.url}")

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def check(self, output_dir, label: str) -> None:
        """Save the screen; it must not scroll sideways, and nothing may have failed so far."""
        self.page.screenshot(path=output_dir / f"{label}-{self.name}.png", full_page=True)
        scroll_width, inner_width = self.page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, f"{label} at {self.name}: {scroll_width}px wide in {inner_width}px"
        assert self.errors == [], f"{label} at {self.name}: {self.errors}"


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def screen(request, chromium: Browser) -> Iterator[Screen]:
    width = WIDTHS[request.param]
    context = chromium.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    context.set_default_timeout(20_000)
    yield Screen(context.new_page(), f"{width}")
    context.close()


def test_the_demo_at_each_width(demo_shop, screen, output_dir):
    page = screen.page
    checkout = open_checkout(page, demo_shop)
    screen.check(output_dir, "demo-new-card")

    enter_card(page, DECLINED_CARD)
    page.locator(".gr4vy-embed__pay").click()
    expect(checkout).to_have_attribute("data-state", "declined")
    screen.check(output_dir, "demo-declined")

    page.get_by_role("button", name="Try another card").click()
    expect(checkout).to_have_attribute("data-state", "ready")
    enter_card(page, APPROVED_CARD)
    page.locator(".gr4vy-embed__pay").click()
    expect(checkout).to_have_attribute("data-state", "approved")
    # The receipt names the payment service that took the payment: the account's sandbox.
    sandbox = PaymentService.objects.get(merchant_account=demo_shop.merchant_account)
    expect(page.locator("#demo-result")).to_contain_text(f"Paid through{sandbox.display_name}")
    screen.check(output_dir, "demo-receipt")


def test_the_returning_buyer_demo_at_each_width(demo_shop, screen, output_dir):
    page = screen.page
    open_checkout(page, demo_shop)
    page.click("#returning-buyer")
    checkout = page.locator("#checkout")
    expect(checkout).to_have_attribute("data-state", "ready")
    enter_card(page, APPROVED_CARD)
    page.get_by_label("Save this card for next time").check()
    screen.check(output_dir, "demo-returning-new-card")
    page.locator(".gr4vy-embed__pay").click()
    expect(checkout).to_have_attribute("data-state", "approved")

    page.reload()
    expect(checkout).to_have_attribute("data-state", "ready")
    expect(page.locator(".gr4vy-embed__saved-item")).to_have_count(2)  # the saved card and "Use a new card"
    screen.check(output_dir, "demo-returning-saved")


# --- the support desk ----------------------------------------------------------------------------------------


def test_the_desk_at_each_width(desk, screen, output_dir):  # noqa: F811 - the fixture imported above
    page = screen.page
    _log_in(page, desk, "support")
    screen.check(output_dir, "desk-start")

    page.fill("#desk-q", "buyer355@")
    page.press("#desk-q", "Enter")
    results = page.locator("#desk-results")
    expect(results.locator("[data-group=buyers] li")).to_have_count(1)
    expect(results.locator("[data-group=transactions] li")).to_have_count(2)
    screen.check(output_dir, "desk-search")

    page.goto(f"{desk.origin}/admin/transactions/transaction/")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    expect(page.locator("#result_list")).to_contain_text("Declined by the bank")
    # Every column shows: the list does not scroll inside its own box either.
    assert _overflow(page) <= 0
    # Each value sits beside its label: the decline reason starts no further left than the status it follows
    # (on a phone, never under the label in the label column).
    stray = page.evaluate(
        """(() => {
            const reason = document.querySelector('#result_list .decline-reason');
            const status = document.createRange();
            status.selectNodeContents(reason.parentElement.firstChild);
            const start = status.getClientRects()[0].left;
            return [...reason.getClientRects()].filter((rect) => rect.left < start - 1).length;
        })()"""
    )
    assert stray == 0, f"the decline reason wraps into the label column at {screen.name}"
    screen.check(output_dir, "desk-transactions")

    _audited(desk)
    page.goto(f"{desk.origin}/admin/payments/auditlogentry/")
    expect(page.locator("#result_list")).to_contain_text("Captured transaction")
    expect(page.locator("#result_list .field-who", has_text="API key").first).to_be_visible()
    if screen.name == "1280":  # every column shows at a laptop's width
        assert _overflow(page) <= 0
    screen.check(output_dir, "desk-audit-log")

    DisputeFactory(transaction=desk.paid, processor_dispute_id="dp_screens", reason="fraudulent")
    page.goto(f"{desk.origin}/admin/buyers/buyer/{desk.paid.buyer_id}/profile/")
    expect(page.locator("[data-pivot=transactions]")).to_contain_text("USD: 2 payment(s)")
    expect(page.locator("[data-pivot='recent events']")).to_contain_text("transaction created")
    expect(page.locator("[data-pivot=disputes] [data-badge=dispute-needs_response]")).to_be_visible()
    screen.check(output_dir, "desk-buyer")

    page.goto(f"{desk.origin}/admin/disputes/dispute/")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list")).to_contain_text("fraudulent")
    screen.check(output_dir, "desk-disputes")
    page.goto(f"{desk.origin}/admin/transactions/transaction/{desk.paid.pk}/change/")
    expect(page.locator("[data-badge=dispute-needs_response]")).to_be_visible()
    if screen.name == "1280":  # the transaction page is 407 px wide on a phone with or without a dispute
        screen.check(output_dir, "desk-disputed-transaction")


def _overflow(page: Page) -> int:
    """How far the list's table reaches past its box: > 0 when a column is cut off."""
    return page.evaluate(
        "(() => { const r = document.querySelector('#changelist .results'); return r.scrollWidth - r.clientWidth; })()"
    )


def _audited(prepared: Desk) -> None:
    """An API key's capture and a staff user's change, as the audit log records them."""
    from payments.accounts.services import api_key_generate
    from payments.audit.services import Actor, audit_record

    paid = prepared.paid
    key = api_key_generate(merchant_account=paid.merchant_account).api_key
    for actor, action in ((Actor(key.id, key.kid, False), "captured"), (Actor(None, "support", True), "updated")):
        audit_record(
            actor=actor,
            action=action,
            resource_type="transaction",
            resource_id=str(paid.pk),
            resource_name=f"Felix Okafor USD 120.00 {paid.pk}",
            merchant_account_id=paid.merchant_account_id,
        )


def test_the_front_door_at_each_width(demo_shop, screen, output_dir):
    page = screen.page
    page.goto(f"{demo_shop.page_origin}/")
    expect(page.get_by_role("link", name="Take your first payment")).to_be_visible()
    screen.check(output_dir, "front-door")

    page.get_by_role("link", name="Demo checkout").click()
    expect(page.locator("#checkout")).to_have_attribute("data-state", "ready")
