"""The start page's trends in headless Chromium at a laptop's screen (1280x800) and a phone's (390x844): Support
switches from the last 24 hours to 7 and 30 days and reads older days' figures, per currency, from the daily
totals, with nothing wider than the screen. Screens land in `test-output/desk-trends-*.png`.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.test_desk_lists import SIDEWAYS
from tests.browser.test_support_desk import _log_in, desk  # noqa: F401 - the desk fixture
from transactions.models import Transaction
from transactions.services.day_totals import day_totals_refresh
from transactions.tests.factories import TransactionFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _days_ago(days: float, **kwargs) -> None:
    txn = TransactionFactory(merchant_account_id="default", **kwargs)
    moment = timezone.now() - timedelta(days=days)
    Transaction.objects.filter(pk=txn.pk).update(created_at=moment, updated_at=moment)


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)], ids=["laptop", "phone"])
def test_support_switches_the_start_page_to_7_and_30_days(desk, chromium, output_dir, width, height):  # noqa: F811
    _days_ago(3, captured=True, amount=25000)
    _days_ago(5, captured=True, amount=9900, currency="EUR")
    _days_ago(5, declined=True, error_code="insufficient_funds")
    _days_ago(20, captured=True, amount=100000, currency="JPY")
    day_totals_refresh()
    context = chromium.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    wide = {}
    try:
        _log_in(page, desk, "support")
        trends = page.locator("#trends")
        expect(trends.locator("h2")).to_have_text("Transactions, last 24 hours")
        expect(trends).not_to_contain_text("EUR")

        trends.get_by_role("link", name="Last 7 days").click()
        expect(trends.locator("h2")).to_have_text("Transactions, last 7 days")
        expect(trends.get_by_role("link", name="Last 7 days")).to_have_attribute("aria-current", "page")
        expect(trends).to_contain_text("USD 370.00")  # 120.00 today and 250.00 three days ago, dollars alone
        expect(trends).to_contain_text("EUR 99.00")
        expect(trends).not_to_contain_text("JPY")
        expect(trends).to_contain_text("Insufficient funds")
        expect(trends).to_contain_text("Days before today as counted at")
        expect(page.locator("#approval-rate")).to_have_text("60.0%")  # 3 approved, 2 declined
        expect(page.locator("#trend-chart g")).to_have_count(7)
        page.screenshot(path=output_dir / f"desk-trends-7-days-{width}.png", full_page=True)
        wide["7 days"] = page.evaluate(SIDEWAYS)

        trends.get_by_role("link", name="Last 30 days").click()
        expect(trends.locator("h2")).to_have_text("Transactions, last 30 days")
        expect(trends).to_contain_text("JPY 100,000")
        expect(page.locator("#trend-chart g")).to_have_count(30)
        page.screenshot(path=output_dir / f"desk-trends-30-days-{width}.png", full_page=True)
        wide["30 days"] = page.evaluate(SIDEWAYS)
    finally:
        context.close()
    assert {where: found for where, found in wide.items() if found} == {}
