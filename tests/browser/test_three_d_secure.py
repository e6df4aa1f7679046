"""3-D Secure inside Embed, in headless Chromium: the issuer's page in a frame of the drop-in, the page it returns
to telling the drop-in, and the drop-in finishing from the transaction it reads back (docs/frontend.md).

The demo shop's sandbox payment service has 3-D Secure on; the default test cards decide the challenge
(docs/test-cards.md). Waits are on `data-state` and other attributes, never on time.
"""

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import FrameLocator, Locator, Page, expect

from paymentservices.models import PaymentService
from paymentservices.services import payment_service_update
from tests.browser.test_checkout import RECORD_PARENT_MESSAGES, add_frame, enter_card, open_checkout, receipt_rows
from transactions.models import ThreeDSecureChallenge, Transaction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHALLENGE_Y = "4000000000003220"
CHALLENGE_N = "4000000000003238"
DESKTOP = (1280, 800)
PHONE = (390, 844)
FRAME = "iframe.gr4vy-embed__challenge-page"


@pytest.fixture
def shop(demo_shop):
    """The demo shop, paying through a sandbox service with 3-D Secure on."""
    service = PaymentService.objects.get(merchant_account=demo_shop.merchant_account, definition_id="mock-card")
    payment_service_update(service=service, three_d_secure_enabled=True)
    return demo_shop


def pay_challenged(page: Page, shop, number: str) -> Locator:
    """Pay with a challenge card; returns the checkout once the issuer's page shows inside it."""
    checkout = open_checkout(page, shop)
    enter_card(page, number)
    page.get_by_role("button", name="Pay $12.99").click()
    expect(checkout).to_have_attribute("data-state", "challenge")
    expect(challenge_page(page).get_by_role("heading", name="Confirm your payment")).to_be_visible()
    return checkout


def challenge_page(page: Page) -> FrameLocator:
    return page.frame_locator(FRAME)


def transaction_of(checkout: Locator) -> Transaction:
    return Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))


def transaction_reads(urls: list[str], transaction_id: str) -> list[str]:
    return [url for url in urls if urlsplit(url).path == f"/transactions/{transaction_id}"]


@pytest.mark.parametrize(
    ("sized_page", "size_name"),
    [(DESKTOP, "desktop"), (PHONE, "phone")],
    indirect=["sized_page"],
    ids=["desktop", "phone"],
)
def test_a_challenge_completed_in_the_frame_ends_authorized(shop, sized_page, size_name, output_dir):
    page = sized_page
    checkout = pay_challenged(page, shop, CHALLENGE_Y)

    # The issuer's page is inside the drop-in, titled, with the amount above it and a way out; focus is in it.
    frame = page.locator(FRAME)
    expect(frame).to_have_attribute("title", "Card issuer authentication")
    expect(frame).to_be_focused()
    expect(page.locator(".gr4vy-embed__challenge")).to_contain_text("confirm this payment of $12.99")
    expect(page.get_by_role("button", name="Cancel payment")).to_be_visible()
    expect(challenge_page(page).get_by_role("button", name="Confirm payment")).to_be_in_viewport()
    txn = transaction_of(checkout)
    assert txn.status == "buyer_approval_pending"
    # The drop-in asked to come back to its own completion page, for its own origin.
    redirect = urlsplit(ThreeDSecureChallenge.objects.get(transaction=txn).redirect_url)
    assert (f"{redirect.scheme}://{redirect.netloc}", redirect.path) == (shop.api_origin, "/embed/approval-complete")
    assert parse_qs(redirect.query)["parent_origin"] == [shop.page_origin]
    page.screenshot(path=output_dir / f"three-d-secure-challenge-{size_name}.png", full_page=True)

    challenge_page(page).get_by_role("button", name="Confirm payment").click()

    expect(checkout).to_have_attribute("data-state", "approved")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_have_text("Payment approved")
    expect(page.locator(FRAME)).to_have_count(0)
    txn.refresh_from_db()
    assert (txn.status, txn.three_d_secure["status"]) == ("capture_succeeded", "complete")
    # onComplete got the transaction read back from the API, as for a payment without a challenge.
    expect(page.locator("#demo-result")).to_have_attribute("data-status", "capture_succeeded")
    assert receipt_rows(page) == {
        "Amount": "$12.99",
        "Card": "ending in 3220",
        "Paid through": "Sandbox",
        "Reference": txn.reconciliation_id,
        "Status": "Paid",
    }
    page.screenshot(path=output_dir / f"three-d-secure-approved-{size_name}.png", full_page=True)


def test_a_challenge_ending_n_ends_declined(shop, browser_page):
    page = browser_page
    checkout = pay_challenged(page, shop, CHALLENGE_N)

    challenge_page(page).get_by_role("button", name="Confirm payment").click()

    expect(checkout).to_have_attribute("data-state", "declined")
    expect(checkout).to_have_attribute("data-error-code", "failed_buyer_approval")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_have_text("Payment declined")
    expect(page.locator("#demo-result")).to_have_attribute("data-status", "authorization_declined")
    assert transaction_of(checkout).status == "authorization_declined"
    # The buyer may try another card, as after any decline.
    page.get_by_role("button", name="Try another card").click()
    expect(checkout).to_have_attribute("data-state", "ready")


def test_escape_closes_the_challenge_with_a_clear_message(shop, browser_page):
    page = browser_page
    checkout = pay_challenged(page, shop, CHALLENGE_Y)

    page.get_by_role("button", name="Cancel payment").focus()
    page.keyboard.press("Escape")

    expect(checkout).to_have_attribute("data-state", "error")
    expect(checkout).to_have_attribute("data-error-code", "authentication_canceled")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_have_text("Payment canceled")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_be_focused()
    expect(page.locator("#demo-result")).to_contain_text("No payment was taken")
    expect(page.locator(FRAME)).to_have_count(0)
    # Nothing was authorized: the transaction waits until its challenge expires (docs/three-d-secure.md).
    assert transaction_of(checkout).status == "buyer_approval_pending"
    page.get_by_role("button", name="Try again").click()
    expect(checkout).to_have_attribute("data-state", "ready")


def test_forged_completion_messages_are_ignored(shop, page_without_csp):
    """The genuine completion page served from another origin, a Secure Fields frame of the API origin and the
    merchant page itself each post the message the drop-in waits for, with the right channel and transaction: none
    ends the challenge. (The shop's CSP would not even let the foreign frame in: it is lifted here to show the
    drop-in's own checks.)"""
    page = page_without_csp
    page.add_init_script(RECORD_PARENT_MESSAGES)
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    checkout = pay_challenged(page, shop, CHALLENGE_Y)
    txn = transaction_of(checkout)
    challenge = ThreeDSecureChallenge.objects.get(transaction=txn)
    query = urlsplit(challenge.redirect_url).query
    message = {
        "type": "gr4vy-embed:approval-complete",
        "channel": parse_qs(query)["channel"][0],
        "transactionId": str(txn.pk),
    }

    # Another site's copy of the completion page: it posts to the shop's origin, as the genuine one does.
    add_frame(page, f"{shop.foreign_origin}/embed/approval-complete?{query}&transaction_id={txn.pk}")
    # A frame of the API's origin that is not the challenge frame.
    secure_field = next(frame for frame in page.frames if "/checkout/secure-fields/frame/" in frame.url)
    secure_field.evaluate("(message) => window.parent.postMessage(message, '*')", message)
    # A script of the merchant page.
    page.evaluate("(message) => window.postMessage(message, '*')", message)

    page.wait_for_function("() => window.__received.filter((m) => m.data.includes('approval-complete')).length === 3")
    origins = sorted(m["origin"] for m in page.evaluate("() => window.__received") if "approval-complete" in m["data"])
    assert origins == sorted([shop.foreign_origin, shop.api_origin, shop.page_origin])
    expect(checkout).to_have_attribute("data-state", "challenge")
    assert transaction_reads(urls, str(txn.pk)) == []

    # The genuine page, in the challenge frame, still ends it.
    challenge_page(page).get_by_role("button", name="Confirm payment").click()
    expect(checkout).to_have_attribute("data-state", "approved")
    assert len(transaction_reads(urls, str(txn.pk))) == 1
