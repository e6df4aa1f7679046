"""Every list of the desk, and its start page, at a laptop's width (1280 px) and a phone's (390 px): no page and no
box in it scrolls sideways, and no column's head or cell breaks a word across lines where it need not. Each screen
lands in `test-output/` to be looked at.
"""

from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page, expect

from payments.accounts.services import api_key_generate, merchant_account_create
from payments.outbox.models import OutboxEvent
from settlements.tests.factories import LedgerEntryFactory, ProcessorPayoutFactory
from tests.browser.test_screens import _audited
from tests.browser.test_support_desk import PASSWORD, desk  # noqa: F401 - the desk fixture
from transactions.models import Transaction
from transactions.tests.factories import RefundFactory
from webhooks.models import DeliveryState, WebhookDelivery, WebhookSubscription

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every element that scrolls sideways, or reaches past the screen: "tag#id.class: how far".
SIDEWAYS = """
() => {
  const wide = [];
  const screen = document.documentElement.clientWidth;
  for (const el of document.querySelectorAll("body *")) {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") continue;
    const scrolls = ["auto", "scroll"].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
    const right = el.getBoundingClientRect().right;
    if (scrolls || (el.tagName === "TABLE" && right > screen + 1)) {
      const classes = typeof el.className === "string" ? el.className.split(/\\s+/).filter(Boolean) : [];
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + classes.map((c) => "." + c).join("");
      wide.push(`${name}: ${scrolls ? el.scrollWidth - el.clientWidth : Math.round(right - screen)}px`);
    }
  }
  const page = document.documentElement.scrollWidth;
  if (page > window.innerWidth) wide.push(`the page: ${page}px`);
  return wide;
}
"""


# Every word the browser broke across two lines ("Settle|ment"): "where: word". A column's head wraps between its
# words only, and so does a cell, but for a token of 16 or more characters without a space (an id, a URL, an email
# address), which may break anywhere (desk-lists.js). A word is one range of text whose boxes all sit on one line.
SPLIT_WORDS = """
() => {
  const split = [];
  for (const cell of document.querySelectorAll("thead th, #result_list tbody td, #result_list tbody th")) {
    const head = cell.parentElement.parentElement.tagName === "THEAD";
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        if (!head && word[0].length >= 16) continue;
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const boxes = [...range.getClientRects()].filter((box) => box.width > 0);
        if (new Set(boxes.map((box) => Math.round(box.top))).size > 1) {
          split.push(`${head ? "head" : "cell"} ${cell.textContent.trim().slice(0, 40)}: ${word[0]}`);
        }
      }
    }
  }
  return split;
}
"""


def _log_in_as_superuser(page: Page, origin: str) -> None:
    User.objects.create_superuser("desk-admin", password=PASSWORD)
    page.goto(f"{origin}/admin/login/?next=/admin/")
    page.fill("#id_username", "desk-admin")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#trends")).to_be_visible()


def _webhook_deliveries(paid: Transaction) -> None:
    """Deliveries as a merchant's receiver gets them: a long receiver URL, every state, retries scheduled."""
    account = paid.merchant_account
    subscription = WebhookSubscription.objects.create(
        merchant_account=account,
        url="https://hooks.merchant-of-record.example.com/payments/gr4vy/webhooks/transactions-and-refunds?source=desk",
        secret_sealed="-",
    )
    soon = timezone.now() + timedelta(minutes=5)
    for state, name in (
        (DeliveryState.PENDING, "transaction.capture.succeeded"),
        (DeliveryState.DELIVERED, "transaction.authorization.succeeded"),
        (DeliveryState.EXPIRED, "transaction.refund.completed"),
    ):
        event = OutboxEvent.objects.create(
            merchant_account=account, name=name, target_type="transaction", target_id=str(paid.pk)
        )
        WebhookDelivery.objects.create(
            subscription=subscription,
            event=event,
            body="{}",
            state=state,
            attempt_count=7,
            next_attempt_at=soon if state == DeliveryState.PENDING else None,
            retry_until=soon,
        )


def _every_list() -> list[str]:
    return sorted(f"{model._meta.app_label}/{model._meta.model_name}" for model in admin.site._registry)


@pytest.mark.parametrize("width", [1280, 390], ids=["laptop", "phone"])
def test_no_list_scrolls_sideways(desk, chromium, output_dir, width):  # noqa: F811 - the fixture imported above
    LedgerEntryFactory(transaction=desk.paid, merchant_account=desk.paid.merchant_account, amount=12000)
    ProcessorPayoutFactory(merchant_account=desk.paid.merchant_account, reference="po_1NvGqv2eZvKYlo2CmIq2Jb7Z")
    RefundFactory(transaction=desk.paid, amount=2000)
    api_key_generate(merchant_account=desk.paid.merchant_account)
    _webhook_deliveries(desk.paid)
    _audited(desk)
    context = chromium.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        _log_in_as_superuser(page, desk.origin)
        wide = {"start page": page.evaluate(SIDEWAYS)}
        split = {"start page": page.evaluate(SPLIT_WORDS)}
        page.screenshot(path=output_dir / f"desk-lists-start-{width}.png", full_page=True)
        for path in _every_list():
            page.goto(f"{desk.origin}/admin/{path}/")
            expect(page.locator("#changelist")).to_be_visible()
            page.screenshot(path=output_dir / f"desk-lists-{path.replace('/', '-')}-{width}.png", full_page=True)
            wide[path] = page.evaluate(SIDEWAYS)
            split[path] = page.evaluate(SPLIT_WORDS)
    finally:
        context.close()
    assert {where: found for where, found in wide.items() if found} == {}
    assert {where: found for where, found in split.items() if found} == {}


@pytest.mark.parametrize("width", [1280, 390], ids=["laptop", "phone"])
def test_a_processor_payout_leads_to_the_ledger_lines_it_paid(desk, chromium, output_dir, width):  # noqa: F811
    account = desk.paid.merchant_account
    for number, amount in enumerate((12000, 4500, 999)):
        LedgerEntryFactory(
            merchant_account=account, amount=amount, payout_reference="po_1Nv", entry_key=f"txn_{number}"
        )
    LedgerEntryFactory(merchant_account=account, payout_reference="po_other", entry_key="txn_other")
    ProcessorPayoutFactory(
        merchant_account=account, reference="po_1Nv", gross=17499, fees=960, net=16539, paid_out=16539, line_count=3
    )
    context = chromium.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        _log_in_as_superuser(page, desk.origin)
        page.goto(f"{desk.origin}/admin/settlements/processorpayout/")
        row = page.locator("#result_list tbody tr", has_text="po_1Nv")
        for figure in ("USD 174.99", "USD 9.60", "USD 165.39", "Mock card (sandbox)"):
            expect(row).to_contain_text(figure)
        page.screenshot(path=output_dir / f"desk-processor-payouts-{width}.png", full_page=True)
        wide = {"payouts": page.evaluate(SIDEWAYS)}
        row.get_by_role("link", name="3 lines").click()
        expect(page.locator("#result_list tbody tr")).to_have_count(3)
        page.screenshot(path=output_dir / f"desk-processor-payout-lines-{width}.png", full_page=True)
        wide["its lines"] = page.evaluate(SIDEWAYS)
    finally:
        context.close()
    assert {where: found for where, found in wide.items() if found} == {}


@pytest.mark.parametrize("width", [1280, 390], ids=["laptop", "phone"])
def test_api_keys_show_the_accounts_they_reach_by_name(desk, chromium, output_dir, width):  # noqa: F811
    made = api_key_generate(merchant_account=desk.paid.merchant_account, display_name="Two shops").api_key
    made.merchant_accounts.add(merchant_account_create(id="eu-shop", display_name="Europe shop"))
    context = chromium.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        _log_in_as_superuser(page, desk.origin)
        page.goto(f"{desk.origin}/admin/payments/apikey/")
        expect(page.locator("#result_list tbody tr", has_text="Two shops")).to_contain_text("Default, Europe shop")
        page.screenshot(path=output_dir / f"desk-api-keys-{width}.png", full_page=True)
        listed = page.evaluate(SIDEWAYS)
        page.goto(f"{desk.origin}/admin/payments/apikey/{made.pk}/change/")
        expect(page.locator(".field-scope")).to_contain_text("Default, Europe shop")
        page.screenshot(path=output_dir / f"desk-api-key-{width}.png", full_page=True)
    finally:
        context.close()
    assert listed == []
