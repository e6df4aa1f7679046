"""The staff start page: the last 24 hours of transactions, in a fixed number of queries."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from transactions.models import Transaction
from transactions.selectors import transaction_day_summary
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

    summary = transaction_day_summary(now=timezone.now())

    assert (summary.approved, summary.declined, summary.failed) == (3, 1, 1)
    assert summary.approval_rate == pytest.approx(0.6)
    assert summary.by_currency == [("USD", 2, 13000), ("JPY", 1, 500)]
    assert dict(summary.declines_by_reason) == {"issuer_decline": 1, "service_error": 1}
    assert sum(approved for _, approved, _ in summary.per_hour) == 3
    assert sum(refused for _, _, refused in summary.per_hour) == 2
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
    assert '<svg id="hourly-chart"' in html
    # Nothing loaded from another host (a random form token may spell "cdn"; an address to another host may not).
    assert not re.search(r"""<(script|link|img)\b[^>]*\b(src|href)=["'](https?:)?//""", html)
    assert f"/admin/transactions/transaction/{declined.pk}/change/" in html
    assert "?error_code=issuer_decline" in html
    assert "View site" not in html


def test_staff_without_transaction_access_see_no_panel(client, day):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("clerk", is_staff=True))

    html = client.get("/admin/").content.decode()

    assert "last-24-hours" not in html


def test_an_empty_day(support_client, merchant_account):
    html = support_client.get("/admin/").content.decode()

    assert "No approved transactions." in html
    assert 'id="approval-rate">-<' in html
