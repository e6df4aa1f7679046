"""The staff start page: transactions over the last 24 hours, 7 days or 30 days, in a fixed number of queries."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from transactions.models import Transaction
from transactions.selectors import transaction_trends
from transactions.services.day_totals import day_totals_refresh
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db


def _at(txn: Transaction, hours_ago: float) -> Transaction:
    Transaction.objects.filter(pk=txn.pk).update(created_at=timezone.now() - timedelta(hours=hours_ago))
    return txn


@pytest.fixture
def day(merchant_account):
    approved = [
        _at(TransactionFactory(merchant_account=merchant_account, captured=True, amount=12000), 1),
        _at(TransactionFactory(merchant_account=merchant_account, authorized=True, amount=500, currency="JPY"), 2),
        _at(TransactionFactory(merchant_account=merchant_account, captured=True, amount=1000), 5),
    ]
    declined = _at(TransactionFactory(merchant_account=merchant_account, declined=True), 1.5)
    failed = _at(
        TransactionFactory(
            merchant_account=merchant_account, status="authorization_failed", error_code="service_error"
        ),
        3,
    )
    _at(TransactionFactory(merchant_account=merchant_account, declined=True), 30)  # outside the window
    return approved, declined, failed


def test_the_summary_counts_the_last_24_hours(day):
    _, declined, failed = day

    summary = transaction_trends(now=timezone.now())

    assert (summary.approved, summary.declined, summary.failed) == (3, 1, 1)
    assert summary.approval_rate == pytest.approx(0.6)
    assert summary.by_currency == [("USD", 2, 13000), ("JPY", 1, 500)]
    assert dict(summary.declines_by_reason) == {"issuer_decline": 1, "service_error": 1}
    assert sum(approved for _, approved, _ in summary.per_period) == 3
    assert sum(refused for _, _, refused in summary.per_period) == 2
    assert [txn.pk for txn in summary.recent_failures] == [declined.pk, failed.pk]


def test_the_start_page_shows_it_with_a_chart_and_links(support_client, day, django_assert_num_queries):
    _, declined, _ = day
    support_client.get("/admin/")

    # session, user, user and group permissions, the grouped window, the newest failures, Django's recent actions,
    # the settlement panel's unmatched lines, lines not as captured, refused files and reports not fetched, the
    # unmatched notifications' count
    with django_assert_num_queries(12):
        html = support_client.get("/admin/").content.decode()

    assert "USD 130.00" in html
    assert "JPY 500" in html
    assert "60.0%" in html
    assert '<svg id="trend-chart"' in html
    assert 'href="?trend=24h" aria-current="page"' in html
    assert "trends-counted" not in html  # all read from the rows
    # Nothing loaded from another host (a random form token may spell "cdn"; an address to another host may not).
    assert not re.search(r"""<(script|link|img)\b[^>]*\b(src|href)=["'](https?:)?//""", html)
    assert f"/admin/transactions/transaction/{declined.pk}/change/" in html
    assert "?error_code=issuer_decline" in html
    assert "View site" not in html


def test_staff_without_transaction_access_see_no_panel(client, day):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("clerk", is_staff=True))

    html = client.get("/admin/").content.decode()

    assert 'id="trends"' not in html


def test_an_empty_day(support_client, merchant_account):
    html = support_client.get("/admin/").content.decode()

    assert "No approved transactions." in html
    assert 'id="approval-rate">-<' in html


@pytest.mark.parametrize("window", ["7d", "30d"])
def test_a_longer_window_reads_counted_days_and_today_in_a_fixed_number_of_queries(
    support_client, day, window, django_assert_num_queries
):
    _at(TransactionFactory(merchant_account=day[1].merchant_account, captured=True, amount=700, currency="EUR"), 50)
    _at(TransactionFactory(merchant_account=day[1].merchant_account, captured=True, amount=2000), 24 * 4)
    day_totals_refresh()
    support_client.get("/admin/")

    # As the 24 hours, with the grouped window's one query in three: the counted days, their totals, and today's
    # rows (with any day not counted yet).
    with django_assert_num_queries(14):
        html = support_client.get(f"/admin/?trend={window}").content.decode()

    assert "Transactions, last " + ("7 days" if window == "7d" else "30 days") in html
    assert f'href="?trend={window}" aria-current="page"' in html
    assert "USD 150.00" in html  # 120.00 + 10.00 today and yesterday, 20.00 four days ago: dollars alone
    assert "EUR 7.00" in html  # two days ago: a currency of its own
    assert "JPY 500" in html
    assert "Days before today as counted at" in html
    assert "Approvals and declines per day (UTC)" in html


def test_an_unknown_window_says_so_and_shows_the_last_24_hours(support_client, day):
    html = support_client.get("/admin/?trend=90d").content.decode()

    assert 'There is no window "90d": showing the last 24 hours.' in html
    assert "Transactions, last 24 hours" in html
