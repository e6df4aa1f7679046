"""Embed and Secure Fields in headless Chromium: the demo shop page on one origin, the API on another.

Selectors and states are the ones docs/frontend.md documents for tests. Waits are on `data-state`
attributes (the demo page's CSP forbids the string evaluation `wait_for_function` needs), never on time.
"""

from datetime import date
from typing import Any

import pytest
from playwright.sync_api import FrameLocator, Locator, Page, expect

from checkout.models import CheckoutSession
from giftcards.models import IssuedGiftCard
from giftcards.services import issued_card_create
from transactions.models import Transaction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

APPROVED_CARD = "4111111111111111"
DECLINED_CARD = "4000000000000002"
NOT_LUHN_VALID = "4111111111111112"
SECURITY_CODE = "123"
# December of next year: valid whenever the suite runs.
EXPIRY = f"12{(date.today().year + 1) % 100:02d}"
FIELDS_PATH = "/fields"

# Runs in every frame before its own scripts; records, on the merchant page only, every message it receives.
RECORD_PARENT_MESSAGES = """
if (window.top === window) {
  window.__received = [];
  window.addEventListener('message', (event) => {
    let data;
    try { data = JSON.stringify(event.data); } catch (error) { data = String(event.data); }
    window.__received.push({ origin: event.origin, data });
  });
}
"""

# Runs in every frame before its own scripts; on the merchant page only, records the global names the page starts
# with and takes the page's own secure-fields.js tag out before it runs, as if the shop included only embed.js.
# (Serving an edited page with `page.route` would not do: Chromium then treats the page as public and blocks its
# requests to the loopback API.)
WITHOUT_SECURE_FIELDS_TAG = """
if (window.top === window) {
  window.__initialGlobals = Object.getOwnPropertyNames(window);
  window.__removedTags = 0;
  const observer = new MutationObserver((records) => {
    records.forEach((record) => record.addedNodes.forEach((node) => {
      if (node.nodeName === 'SCRIPT' && node.src.endsWith('/secure-fields.js')) {
        node.remove();
        window.__removedTags += 1;
        observer.disconnect();
      }
    }));
  });
  observer.observe(document, { childList: true, subtree: true });
}
"""


# --- helpers -----------------------------------------------------------------------------------------------


def field(page: Page, name: str) -> FrameLocator:
    return page.frame_locator(f'iframe[data-field="{name}"]')


def open_checkout(page: Page, shop) -> Locator:
    page.goto(shop.url)
    checkout = page.locator("#checkout")
    expect(checkout).to_have_attribute("data-state", "ready")
    return checkout


def enter_card(page: Page, number: str, *, expiry: str = EXPIRY, security_code: str = SECURITY_CODE) -> None:
    # Key by key: the frames format and validate on `input` events.
    field(page, "number").locator("#sf-input").press_sequentially(number)
    field(page, "expiry").locator("#sf-input").press_sequentially(expiry)
    field(page, "security_code").locator("#sf-input").press_sequentially(security_code)


def receipt_rows(page: Page) -> dict[str, str]:
    receipt = page.locator("#demo-result")
    return dict(zip(receipt.locator("dt").all_inner_texts(), receipt.locator("dd").all_inner_texts(), strict=True))


def session_of_id(session_id: str) -> CheckoutSession:
    return CheckoutSession.objects.select_related("card").get(pk=session_id)


def session_of(page: Page) -> CheckoutSession:
    return session_of_id(page.locator("#checkout").get_attribute("data-session-id"))


def track_requests(page: Page) -> list[str]:
    """URLs of every request the page or any of its frames sends from now on."""
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    return urls


def add_frame(page: Page, url: str) -> None:
    """Put a frame of `url` on the page, as a script of the page would, and wait until it has loaded."""
    page.evaluate(
        """(url) => new Promise((resolve) => {
          const frame = document.createElement('iframe');
          frame.addEventListener('load', resolve);
          frame.src = url;
          document.body.append(frame);
        })""",
        url,
    )


def api_calls(urls: list[str], path_end: str) -> list[str]:
    return [url for url in urls if url.split("?")[0].endswith(path_end)]


# --- paying ------------------------------------------------------------------------------------------------


def test_an_approved_card_pays_and_the_transaction_is_stored(demo_shop, browser_page, output_dir):
    page = browser_page
    checkout = open_checkout(page, demo_shop)
    expect(page.get_by_role("heading", name="Pay $12.99")).to_be_visible()

    enter_card(page, APPROVED_CARD)
    page.get_by_role("button", name="Pay $12.99").click()

    expect(checkout).to_have_attribute("data-state", "approved")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_have_text("Payment approved")
    page.screenshot(path=output_dir / "approved.png", full_page=True)

    transaction = Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))
    assert transaction.merchant_account_id == "default"
    assert (transaction.amount, transaction.currency, transaction.status) == (1299, "USD", "capture_succeeded")
    assert transaction.checkout_session_id == session_of(page).id
    assert (transaction.card_bin, transaction.card_last4) == ("411111", "1111")
    # The shop's receipt, in words: amount, last 4, a reference, the status.
    receipt = page.locator("#demo-result")
    expect(receipt.get_by_role("heading")).to_have_text("Receipt")
    assert receipt_rows(page) == {
        "Amount": "$12.99",
        "Card": "ending in 1111",
        "Paid through": "Sandbox",
        "Reference": transaction.reconciliation_id,
        "Status": "Paid",
    }


def test_a_declined_card_shows_the_decline(demo_shop, browser_page):
    page = browser_page
    checkout = open_checkout(page, demo_shop)

    enter_card(page, DECLINED_CARD)
    page.locator(".gr4vy-embed__pay").click()

    expect(checkout).to_have_attribute("data-state", "declined")
    expect(checkout).to_have_attribute("data-error-code", "issuer_decline")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_have_text("Payment declined")
    expect(page.get_by_role("button", name="Try another card")).to_be_visible()
    transaction = Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))
    assert (transaction.status, transaction.error_code) == ("authorization_declined", "issuer_decline")
    expect(page.locator("#demo-result").get_by_role("heading")).to_have_text("Payment attempt")
    assert receipt_rows(page)["Status"] == "Declined"
    assert receipt_rows(page)["Card"] == "ending in 0002"
    # Nothing was paid: the receipt says where it was tried, never "Paid through".
    assert "Paid through" not in receipt_rows(page)
    assert receipt_rows(page)["Tried through"] == "Sandbox"

    # Trying another card starts from empty fields: the declined number is not offered again.
    page.get_by_role("button", name="Try another card").click()
    expect(checkout).to_have_attribute("data-state", "ready")
    for name in ("number", "expiry", "security_code"):
        expect(field(page, name).locator("#sf-input")).to_have_value("")
        expect(field(page, name).locator("#sf-error")).to_have_text("")
    enter_card(page, APPROVED_CARD)
    page.locator(".gr4vy-embed__pay").click()
    expect(checkout).to_have_attribute("data-state", "approved")
    assert receipt_rows(page)["Card"] == "ending in 1111"


def test_an_invalid_number_shows_an_inline_error_and_sends_nothing(demo_shop, browser_page):
    page = browser_page
    checkout = open_checkout(page, demo_shop)
    requests = track_requests(page)

    enter_card(page, NOT_LUHN_VALID)
    number = field(page, "number")
    expect(number.locator("#sf-error")).to_have_text("The card number is not valid.")
    expect(number.locator("#sf-input")).to_have_attribute("aria-invalid", "true")
    pay = page.locator(".gr4vy-embed__pay")
    # Not greyed out: pressing it says what is wrong instead.
    expect(pay).to_be_enabled()

    pay.click()

    expect(page.locator(".gr4vy-embed__card .gr4vy-embed__error")).to_have_text(
        "Check your card details. Some of them are missing or not valid."
    )
    expect(checkout).to_have_attribute("data-state", "ready")
    assert api_calls(requests, FIELDS_PATH) == []
    assert api_calls(requests, "/transactions") == []
    assert session_of(page).card is None
    assert not Transaction.objects.exists()


def apply_gift_card(page: Page, gift_card: Any) -> None:
    """Open Embed's gift card form, enter `gift_card`'s number and PIN (an issued card's clear ones) and check it."""
    page.get_by_role("button", name="Use a gift card").click()
    page.get_by_label("Gift card number").fill(gift_card.number)
    page.get_by_label("PIN").fill(gift_card.pin)
    page.get_by_role("button", name="Check balance").click()


def test_a_gift_card_pays_part_of_the_amount(demo_shop, browser_page, output_dir):
    gift_card = issued_card_create(merchant_account=demo_shop.merchant_account, amount=500, currency="USD")
    page = browser_page
    checkout = open_checkout(page, demo_shop)

    apply_gift_card(page, gift_card)

    expect(page.locator(f'.gr4vy-embed__applied-item[data-last4="{gift_card.number[-4:]}"]')).to_contain_text(
        "Covers $5.00"
    )
    expect(page.locator(".gr4vy-embed__remaining")).to_have_text("$7.99")
    # The button says what the card will be charged, never the whole amount beside "Remaining $7.99".
    expect(page.locator(".gr4vy-embed__pay")).to_have_text("Pay $7.99 by card")
    page.screenshot(path=output_dir / "gift-card-part.png", full_page=True)
    enter_card(page, APPROVED_CARD)
    page.locator(".gr4vy-embed__pay").click()

    expect(checkout).to_have_attribute("data-state", "approved")
    transaction = Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))
    assert (transaction.amount, transaction.status) == (1299, "capture_succeeded")
    # The receipt says how the amount was split: the gift card's part and the card's.
    rows = receipt_rows(page)
    assert rows["Gift card"] == f"$5.00 from the card ending in {gift_card.number[-4:]}"
    assert rows["Card"] == "$7.99, ending in 1111"
    page.screenshot(path=output_dir / "gift-card-receipt.png", full_page=True)
    redemption = transaction.gift_card_redemptions.get()
    assert (redemption.amount, redemption.last4) == (500, gift_card.number[-4:])
    assert IssuedGiftCard.objects.get(pk=gift_card.card.pk).balance == 0


def test_gift_cards_covering_the_amount_pay_it_alone_with_the_sessions_token(demo_shop, browser_page):
    gift_card = issued_card_create(merchant_account=demo_shop.merchant_account, amount=2000, currency="USD")
    page = browser_page
    checkout = open_checkout(page, demo_shop)  # its token pins the page's checkout session

    apply_gift_card(page, gift_card)
    expect(page.locator(".gr4vy-embed__pay")).to_have_text("Pay $12.99 with gift cards")
    page.locator(".gr4vy-embed__pay").click()

    expect(checkout).to_have_attribute("data-state", "approved")
    transaction = Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))
    assert (transaction.amount, transaction.status) == (1299, "capture_succeeded")
    assert transaction.checkout_session_id is None
    assert receipt_rows(page)["Gift card"] == f"$12.99 from the card ending in {gift_card.number[-4:]}"
    assert session_of(page).card is None  # no card was asked for
    assert IssuedGiftCard.objects.get(pk=gift_card.card.pk).balance == 701


def test_embed_loads_secure_fields_itself_and_uses_its_helpers(demo_shop, browser_page):
    """A shop page that includes only embed.js still pays, and the scripts add no globals besides their own."""
    page = browser_page
    page.add_init_script(WITHOUT_SECURE_FIELDS_TAG)
    checkout = open_checkout(page, demo_shop)

    loaded = page.evaluate(
        r"""() => ({
          removedTags: window.__removedTags,
          scripts: Array.from(document.scripts, (script) => script.src).filter((src) => src.includes('secure-fields')),
          // Leaving out the frames' indexes ("0", "1", "2").
          added: Object.getOwnPropertyNames(window)
            .filter((name) => !window.__initialGlobals.includes(name) && !/^\d+$/.test(name))
            .sort(),
          helpers: Object.keys(SecureFields.helpers).sort(),
          frozen: Object.isFrozen(SecureFields.helpers),
        })"""
    )
    assert loaded == {
        "removedTags": 1,
        # The one embed.js added.
        "scripts": [f"{demo_shop.api_origin}/static/checkout/secure-fields.js"],
        "added": ["Embed", "SecureFields", "__initialGlobals", "__removedTags", "demoCheckout"],
        "helpers": ["parseRetryAfter", "randomId", "toOrigin"],
        "frozen": True,
    }

    enter_card(page, APPROVED_CARD)
    page.locator(".gr4vy-embed__pay").click()
    expect(checkout).to_have_attribute("data-state", "approved")
    assert Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id")).status == "capture_succeeded"


def test_exceeding_the_session_limit_shows_too_many_attempts(demo_shop, browser_page, settings):
    # One card submission per session and day: the second is over the limit whatever the time.
    settings.RATELIMIT_CHECKOUT_FIELDS = "1/d"
    page = browser_page
    checkout = open_checkout(page, demo_shop)
    enter_card(page, DECLINED_CARD)
    page.locator(".gr4vy-embed__pay").click()
    expect(checkout).to_have_attribute("data-state", "declined")

    page.get_by_role("button", name="Try another card").click()
    expect(checkout).to_have_attribute("data-state", "ready")
    enter_card(page, APPROVED_CARD)
    page.locator(".gr4vy-embed__pay").click()

    expect(checkout).to_have_attribute("data-state", "too-many-attempts")
    expect(page.locator(".gr4vy-embed__outcome-title")).to_have_text("Too many attempts")
    expect(page.get_by_role("alert").filter(has_text="Please wait")).to_be_visible()
    # Retry-After reached the page: trying again is offered, but not before the limit resets.
    expect(page.get_by_role("button", name="Try again")).to_be_disabled()
    assert Transaction.objects.count() == 1


# --- isolation of the card data ----------------------------------------------------------------------------


def test_the_merchant_page_cannot_read_the_card_number(demo_shop, browser_page):
    page = browser_page
    page.add_init_script(RECORD_PARENT_MESSAGES)
    checkout = open_checkout(page, demo_shop)
    enter_card(page, APPROVED_CARD)
    expect(page.locator(".gr4vy-embed__pay")).to_be_enabled()

    attempts = page.evaluate(
        """() => {
          const frame = document.querySelector('iframe[data-field="number"]');
          const attempt = (read) => { try { read(); return 'read'; } catch (error) { return error.name; } };
          return {
            contentDocument: frame.contentDocument === null ? 'null' : 'document',
            document: attempt(() => frame.contentWindow.document.getElementById('sf-input').value),
            location: attempt(() => frame.contentWindow.location.href),
            framesIndex: attempt(() => window.frames[0].document.body),
          };
        }"""
    )
    assert attempts == {
        "contentDocument": "null",
        "document": "SecurityError",
        "location": "SecurityError",
        "framesIndex": "SecurityError",
    }

    page.locator(".gr4vy-embed__pay").click()
    expect(checkout).to_have_attribute("data-state", "approved")

    received = page.evaluate("() => window.__received")
    from_frames = [message for message in received if message["origin"] == demo_shop.api_origin]
    # The frames did talk to the page (validity, scheme, last 4 digits), just never about the number.
    assert any('"last4":"1111"' in message["data"] for message in from_frames)
    assert all(message["origin"] == demo_shop.api_origin for message in received)
    for message in received:
        assert APPROVED_CARD not in message["data"]
        assert "4111 1111 1111 1111" not in message["data"]
        assert f"{EXPIRY[:2]}/{EXPIRY[2:]}" not in message["data"]
    assert APPROVED_CARD not in page.content()


def test_a_site_the_merchant_does_not_list_can_neither_call_nor_frame_secure_fields(demo_shop, browser_page):
    page = browser_page
    open_checkout(page, demo_shop)
    session_id = page.locator("#checkout").get_attribute("data-session-id")
    token = page.locator("#checkout").get_attribute("data-token")
    page.goto(f"{demo_shop.foreign_origin}/healthz")

    outcomes = page.evaluate(
        """async ([api, sessionId, token]) => {
          const card = { payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/40' } };
          const call = async (path, method, body, headers = {}) => {
            try {
              const response = await fetch(`${api}${path}`, {
                method, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body),
              });
              return `read status ${response.status}`;
            } catch (error) {
              return error.name;
            }
          };
          const auth = { Authorization: `Bearer ${token}` };
          return {
            fields: await call(`/checkout/sessions/${sessionId}/fields`, 'PUT', card),
            transactions: await call('/transactions', 'POST', { amount: 1299, currency: 'USD' }, auth),
            balances: await call('/gift-cards/balances', 'POST', { items: [] }, auth),
          };
        }""",
        [demo_shop.api_origin, session_id, token],
    )
    # TypeError: the browser refused, because no CORS header allowed this site.
    assert outcomes == {"fields": "TypeError", "transactions": "TypeError", "balances": "TypeError"}
    assert session_of_id(session_id).card is None

    # Claiming to be the merchant's page does not help: frame-ancestors stops the frame from rendering.
    frame_url = (
        f"{demo_shop.api_origin}/checkout/secure-fields/frame/?field=number&session_id={session_id}"
        f"&parent_origin={demo_shop.page_origin}#channel=abcdefgh12345678"
    )
    add_frame(page, frame_url)
    assert len(page.frames) == 2
    assert page.frames[1].locator("#sf-input").count() == 0


def test_api_errors_and_429s_are_readable_cross_origin(demo_shop, browser_page, settings):
    """The merchant page can read Embed's API errors, including a 429 and its Retry-After."""
    settings.RATELIMIT_EMBED = "1/d"
    page = browser_page
    open_checkout(page, demo_shop)

    answers = page.evaluate(
        """async ([api, token]) => {
          const post = async () => {
            const response = await fetch(`${api}/transactions`, {
              method: 'POST', mode: 'cors', credentials: 'omit',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
              body: JSON.stringify({ amount: 1299, currency: 'USD' }),
            });
            return { status: response.status, code: (await response.json()).code,
                     retryAfter: response.headers.get('Retry-After') };
          };
          return [await post(), await post()];
        }""",
        [demo_shop.api_origin, page.locator("#checkout").get_attribute("data-token")],
    )

    first, second = answers
    assert (first["status"], first["code"]) == (400, "bad_request")
    assert (second["status"], second["code"]) == (429, "too_many_requests")
    assert int(second["retryAfter"]) > 0
    assert not Transaction.objects.exists()


# --- accessibility and small screens ----------------------------------------------------------------------


FIELD_LABELS = {
    "number": ("Card number", "Secure card number input"),
    "expiry": ("Expiry date (MM/YY)", "Secure expiry date input"),
    "security_code": ("Security code", "Secure security code input"),
}


def test_the_checkout_is_labelled_and_can_be_paid_with_the_keyboard(demo_shop, browser_page):
    page = browser_page
    checkout = open_checkout(page, demo_shop)
    for name, (label, frame_title) in FIELD_LABELS.items():
        expect(field(page, name).locator("#sf-input")).to_have_accessible_name(label)
        expect(page.locator(f'iframe[data-field="{name}"]')).to_have_attribute("title", frame_title)
    expect(page.get_by_role("group", name="Card details")).to_be_visible()

    enter_card(page, APPROVED_CARD)
    # From the last card field, Tab leaves the frame and reaches the pay button in a few steps.
    field(page, "security_code").locator("#sf-input").focus()
    pay = page.locator(".gr4vy-embed__pay")
    for _ in range(5):
        page.keyboard.press("Tab")
        if pay.evaluate("button => button === document.activeElement"):
            break
    expect(pay).to_be_focused()
    page.keyboard.press("Enter")

    expect(checkout).to_have_attribute("data-state", "approved")
    expect(page.get_by_role("alert").filter(has_text="Your payment of $12.99 was successful")).to_be_visible()
    expect(page.locator(".gr4vy-embed__outcome-title")).to_be_focused()


def horizontal_extent(locator: Locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not displayed"
    return box["x"], box["x"] + box["width"]


def test_the_checkout_fits_a_phone_screen(demo_shop, phone_page):
    page = phone_page
    open_checkout(page, demo_shop)
    page.get_by_role("button", name="Use a gift card").click()
    enter_card(page, NOT_LUHN_VALID)
    expect(field(page, "number").locator("#sf-error")).not_to_be_empty()

    widths = page.evaluate(
        "() => ({ scroll: document.documentElement.scrollWidth, viewport: document.documentElement.clientWidth })"
    )
    assert widths == {"scroll": 360, "viewport": 360}
    controls = [page.locator(f'iframe[data-field="{name}"]') for name in FIELD_LABELS]
    controls += [page.locator(".gr4vy-embed__pay"), page.get_by_label("Gift card number"), page.get_by_label("PIN")]
    for control in controls:
        left, right = horizontal_extent(control)
        assert left >= 0
        assert right <= 360
