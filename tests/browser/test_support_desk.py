"""The admin as a support desk in headless Chromium, as a Payments operator and as Support: find a transaction by
last 4 and by email, open the buyer, refund from the transaction page with a reason, see it on the timeline.

Screenshots of the start page, the buyer page and the transaction page land in `test-output/`.
"""

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import Page, expect

from buyers.services import buyer_create
from payments.accounts.services import merchant_account_create
from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT, roles_sync
from transactions.models import Transaction
from transactions.requests import CardRequest, TransactionRequest
from transactions.services.create import transaction_create
from transactions.services.state import Actor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long staff passphrase 42"


@dataclass(frozen=True)
class Desk:
    origin: str
    paid: Transaction  # captured, card ending 1111, Felix Okafor
    declined: Transaction  # card ending 0002, same buyer


def _pay(account, buyer, number: str, amount: int) -> Transaction:
    card = CardRequest(number=number, expiration_month=12, expiration_year=2039, security_code="123")
    request = TransactionRequest(
        amount=amount, currency="USD", payment_method=card, intent="capture", buyer_id=buyer.pk
    )
    return transaction_create(merchant_account=account, actor=Actor.api_key("shop"), request=request)


@pytest.fixture
def desk(two_origin_server, transactional_db, settings) -> Desk:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = settings.SECURE_SSL_REDIRECT = False
    account = merchant_account_create(id="default", display_name="Default", allowed_origins=[])
    buyer = buyer_create(
        merchant_account=account,
        display_name="Felix Okafor",
        external_identifier="customer-355",
        billing_details={
            "first_name": "Felix",
            "last_name": "Okafor",
            "email_address": "buyer355@example.com",
            "address": {"line1": "1 Demo Street", "city": "Lagos", "postal_code": "100001", "country": "NG"},
        },
    )
    paid = _pay(account, buyer, "4111111111111111", 12000)
    declined = _pay(account, buyer, "4000000000000002", 4500)
    roles_sync()
    for group in (SUPPORT, PAYMENTS_OPERATOR):
        user = User.objects.create_user(group.lower().replace(" ", "-"), password=PASSWORD, is_staff=True)
        user.groups.add(Group.objects.get(name=group))
    return Desk(origin=two_origin_server.url, paid=paid, declined=declined)


@pytest.fixture
def wide_page(chromium) -> Iterator[Page]:
    """A laptop screen: the list must fit 1400 px."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


def _log_in(page: Page, desk: Desk, username: str) -> None:
    page.goto(f"{desk.origin}/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#trends")).to_be_visible()


def _search(page: Page, desk: Desk, term: str) -> None:
    page.goto(f"{desk.origin}/admin/transactions/transaction/")
    page.fill("#searchbar", term)
    page.press("#searchbar", "Enter")


def test_an_operator_finds_a_payment_opens_the_buyer_and_refunds_with_a_reason(desk, wide_page, output_dir):
    page = wide_page
    _log_in(page, desk, "payments-operator")
    expect(page.locator("#trend-chart")).to_be_visible()
    expect(page.locator("#approval-rate")).to_have_text("50.0%")
    page.screenshot(path=output_dir / "support-desk-landing.png", full_page=True)

    _search(page, desk, "0002")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Declined by the bank")
    list_width = page.evaluate("document.querySelector('#result_list').getBoundingClientRect().right")
    assert list_width <= 1400

    _search(page, desk, "buyer355@example.com")
    expect(rows).to_have_count(2)
    page.click(f"a[href*='/{desk.paid.pk}/change/']")
    expect(page.locator("#timeline")).to_contain_text("capture succeeded")
    expect(page.locator("body")).to_contain_text("USD 120.00")

    page.click("text=Felix Okafor")
    expect(page.locator("[data-pivot=transactions]")).to_contain_text("Transactions (2)")
    expect(page.locator("body")).to_contain_text("1 Demo Street")
    page.screenshot(path=output_dir / "support-desk-buyer.png", full_page=True)
    page.go_back()

    page.click("a.transaction-action[data-action=refund]")
    expect(page.locator(".action-promise")).to_contain_text("Give back up to USD 120.00")
    page.fill("#id_amount", "25.00")
    page.fill("#id_reason", "Damaged item, customer kept the rest")
    page.click("input[type=submit][value=Refund]")

    expect(page.locator(".messagelist")).to_contain_text("Refund: USD 25.00 succeeded.")
    timeline = page.locator("#timeline")
    expect(timeline).to_contain_text("refund to payment method, succeeded")
    expect(timeline).to_contain_text("Damaged item, customer kept the rest")
    page.screenshot(path=output_dir / "support-desk-transaction.png", full_page=True)
    desk.paid.refresh_from_db()
    assert desk.paid.refunded_amount == 2500


def test_support_finds_the_same_payment_but_has_no_buttons(desk, wide_page):
    page = wide_page
    _log_in(page, desk, "support")

    _search(page, desk, "1111")
    page.click(f"a[href*='/{desk.paid.pk}/change/']")

    expect(page.locator("#timeline")).to_contain_text("capture succeeded")
    expect(page.locator("a.transaction-action")).to_have_count(0)
    response = page.goto(f"{desk.origin}/admin/transactions/transaction/{desk.paid.pk}/refund/")
    assert response is not None
    assert response.status == 403
