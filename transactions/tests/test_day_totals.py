"""The start page's daily totals: recomputed from the transactions, so the 7- and 30-day figures read from them
always equal a direct count of the rows, also after a transaction of a counted day changes."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from transactions.models import Transaction, TransactionDayRollup, TransactionDayTotal, TransactionStatus
from transactions.selectors import TrendSummary, day_start, transaction_trends
from transactions.services.day_totals import day_totals_recompute, day_totals_refresh, days_to_recompute
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

REFUSED = {TransactionStatus.AUTHORIZATION_DECLINED: "declined", TransactionStatus.AUTHORIZATION_FAILED: "failed"}


def _at(txn: Transaction, days_ago: float) -> Transaction:
    """Made `days_ago` days back and last changed then, as an old row is."""
    moment = timezone.now() - timedelta(days=days_ago)
    Transaction.objects.filter(pk=txn.pk).update(created_at=moment, updated_at=moment)
    txn.refresh_from_db()
    return txn


def direct_figures(*, since: datetime) -> dict:
    """The figures counted straight from the rows, in Python, as the page should show them."""
    currencies: dict[str, list[int]] = {}
    totals: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for txn in Transaction.objects.filter(created_at__gte=since):
        if txn.authorized_at is not None:
            totals["approved"] += 1
            entry = currencies.setdefault(txn.currency, [0, 0])
            entry[0] += 1
            entry[1] += txn.amount
        elif txn.status in REFUSED:
            totals[REFUSED[txn.status]] += 1
            reasons[txn.error_code or "unknown"] += 1
    return {
        "by_currency": {code: tuple(entry) for code, entry in currencies.items()},
        "totals": (totals["approved"], totals["declined"], totals["failed"]),
        "reasons": dict(reasons),
    }


def shown_figures(summary: TrendSummary) -> dict:
    return {
        "by_currency": {code: (count, volume) for code, count, volume in summary.by_currency},
        "totals": (summary.approved, summary.declined, summary.failed),
        "reasons": dict(summary.declines_by_reason),
    }


@pytest.fixture
def month(merchant_account, other_merchant_account):
    """A month of payments on two accounts in two currencies, one of them still processing three days ago."""
    made = {}
    for name, days_ago, account, kwargs in [
        ("today", 0.01, merchant_account, {"captured": True, "amount": 1000}),
        ("declined today", 0.02, other_merchant_account, {"declined": True}),
        ("yesterday", 1.5, merchant_account, {"captured": True, "amount": 2500}),
        ("yen", 1.5, other_merchant_account, {"authorized": True, "amount": 700, "currency": "JPY"}),
        ("declined", 2.5, merchant_account, {"declined": True, "error_code": "insufficient_funds"}),
        ("late", 3.5, merchant_account, {"amount": 4200}),  # processing: answered after its day is counted
        ("failed", 3.5, merchant_account, {"status": "authorization_failed", "error_code": None}),
        ("euro", 6.5, other_merchant_account, {"captured": True, "amount": 990, "currency": "EUR"}),
        ("old yen", 12.5, merchant_account, {"authorized": True, "amount": 300, "currency": "JPY"}),
        ("month old", 28.5, merchant_account, {"captured": True, "amount": 100}),
        ("too old", 45, merchant_account, {"captured": True, "amount": 99999}),  # outside every window
    ]:
        made[name] = _at(TransactionFactory(merchant_account=account, **kwargs), days_ago)
    return made


@pytest.mark.parametrize(("window", "days"), [("7d", 7), ("30d", 30)])
def test_the_figures_equal_the_rows_before_during_and_after_the_daily_count(month, window, days):
    since = day_start(timezone.now().date() - timedelta(days=days - 1))

    # Nothing counted yet: every day is read from the rows.
    assert shown_figures(transaction_trends(now=timezone.now(), window=window)) == direct_figures(since=since)

    assert len(day_totals_refresh()) == 30
    assert TransactionDayTotal.objects.exists()
    assert shown_figures(transaction_trends(now=timezone.now(), window=window)) == direct_figures(since=since)

    # After their days were counted: the processing payment is approved (a capture later, for more), a captured one
    # grows by an increment, the failure becomes a decline with a reason.
    late = month["late"]
    late.status, late.authorized_at, late.amount = TransactionStatus.CAPTURE_SUCCEEDED, timezone.now(), 4500
    late.save()
    grown = month["yesterday"]
    grown.amount += 250
    grown.save()
    failed = month["failed"]
    failed.status, failed.error_code = TransactionStatus.AUTHORIZATION_DECLINED, "do_not_honor"
    failed.save()
    today = timezone.now().date()
    changed = sorted({late.created_at.astimezone(UTC).date(), grown.created_at.astimezone(UTC).date()})
    assert days_to_recompute(today=today) == changed

    assert day_totals_refresh() == changed
    figures = shown_figures(transaction_trends(now=timezone.now(), window=window))
    assert figures == direct_figures(since=since)
    assert figures["by_currency"]["USD"][1] == 1000 + 2750 + 4500 + (100 if days == 30 else 0)
    assert "JPY" in figures["by_currency"]  # each currency its own line: yen are never added to dollars


def test_a_day_is_counted_per_account_currency_and_outcome_and_again_to_the_same_rows(month, merchant_account):
    day = month["yesterday"].created_at.astimezone(UTC).date()

    day_totals_recompute(day=day)
    first = set(TransactionDayTotal.objects.values_list("merchant_account_id", "currency", "status", "count", "amount"))
    day_totals_recompute(day=day)

    assert first == {
        ("default", "USD", "capture_succeeded", 1, 2500),
        ("other", "JPY", "authorization_succeeded", 1, 700),
    }
    assert (
        set(TransactionDayTotal.objects.values_list("merchant_account_id", "currency", "status", "count", "amount"))
        == first
    )
    assert TransactionDayRollup.objects.get().day == day


def test_a_day_with_no_transactions_is_counted_as_empty_and_not_read_again(merchant_account):
    today = timezone.now().date()

    day_totals_refresh()

    assert TransactionDayRollup.objects.count() == 30
    assert not TransactionDayTotal.objects.exists()
    assert days_to_recompute(today=today) == []


def test_a_change_just_before_a_count_is_counted_again_in_case_it_committed_after_the_count_read(merchant_account):
    txn = _at(TransactionFactory(merchant_account=merchant_account, declined=True), 2)
    day = txn.created_at.astimezone(UTC).date()
    day_totals_recompute(day=day)
    # Stamped a minute before the count's stamp, as a change saved before the count and committed after it read.
    rollup = TransactionDayRollup.objects.get(day=day)
    Transaction.objects.filter(pk=txn.pk).update(updated_at=rollup.computed_at - timedelta(minutes=1))

    assert day in days_to_recompute(today=timezone.now().date())


def test_the_backfill_command_counts_the_days_asked_for(month, capsys):
    call_command("recompute_day_totals", "--days", "60")

    assert TransactionDayRollup.objects.count() == 60
    old = month["too old"].created_at.astimezone(UTC).date()
    assert TransactionDayTotal.objects.get(day=old).amount == 99999
    assert "60 day(s) counted" in capsys.readouterr().out


def test_the_backfill_command_refuses_a_count_that_is_not_a_whole_number():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="whole number"):
        call_command("recompute_day_totals", "--days", "0")
