"""The start page's daily totals: each whole UTC day's transactions counted into `TransactionDayTotal` rows, so a
30-day trend reads a few hundred rows instead of a month of transactions.

A day's totals are only ever replaced by a fresh count of that day's transactions, never added to, so a recompute
is idempotent and a transaction that changes after its day was counted (a capture, an increment, a late decline)
is counted right at the next refresh: `day_totals_refresh` (a scheduled job) recomputes every day of the trend
window that has no totals yet or whose transactions changed since it was counted, found through the
`(merchant_account, updated_at)` index. docs/admin.md ("Trends beyond 24 hours") says why this and not a write
beside every status change.
"""

from __future__ import annotations

from datetime import UTC, date, timedelta

from django.db import transaction
from django.db.models import Max
from django.db.models.functions import TruncDate
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from transactions.models import Transaction, TransactionDayRollup, TransactionDayTotal
from transactions.selectors import day_start, day_total_groups, transactions_of_day

# The longest window the start page offers; the refresh keeps this many days before today counted.
TREND_DAYS = 30
# A change is stamped (`updated_at`) when it is saved and seen by others when its database transaction commits: one
# stamped before a count began but committed after the count read its day is caught by looking back this far.
COMMIT_MARGIN = timedelta(minutes=10)


@transaction.atomic
def day_totals_recompute(*, day: date) -> TransactionDayRollup:
    """Replace `day`'s totals with a fresh count of its transactions: the same result however often it runs, and
    two counts of one day take turns (the day's `TransactionDayRollup` row is locked)."""
    fresh = TransactionDayRollup(day=day, computed_at=timezone.now())
    TransactionDayRollup.objects.bulk_create([fresh], ignore_conflicts=True)
    rollup = TransactionDayRollup.objects.select_for_update().get(day=day)
    # Stamped before the count reads anything: a change saved from here on is newer than the stamp.
    rollup.computed_at = timezone.now()
    TransactionDayTotal.objects.filter(day=day).delete()
    TransactionDayTotal.objects.bulk_create(
        TransactionDayTotal(
            day=day,
            merchant_account_id=group["merchant_account_id"],
            currency=group["currency"],
            status=group["status"],
            error_code=group["reason"],
            approved=group["approved"],
            count=group["count"],
            amount=group["volume"],
        )
        for group in day_total_groups(transactions_of_day(day))
    )
    rollup.save(update_fields=["computed_at"])
    return rollup


def days_to_recompute(*, today: date, days: int = TREND_DAYS) -> list[date]:
    """The days of the last `days` before `today` never counted, or with a transaction changed since (or just
    before) its count: two queries, the second reading only the transactions changed since the oldest count."""
    first = today - timedelta(days=days)
    counted = dict(TransactionDayRollup.objects.filter(day__gte=first, day__lt=today).values_list("day", "computed_at"))
    stale = {first + timedelta(days=n) for n in range(days)} - counted.keys()
    if counted:
        changed = (
            Transaction.objects.filter(
                # Every account named, so the `(merchant_account, updated_at)` index serves the range.
                merchant_account_id__in=MerchantAccount.objects.values("pk"),
                updated_at__gte=min(counted.values()) - COMMIT_MARGIN,
                created_at__gte=day_start(first),
                created_at__lt=day_start(today),
            )
            .order_by()
            .values(day=TruncDate("created_at", tzinfo=UTC))
            .annotate(last=Max("updated_at"))
        )
        stale |= {
            row["day"]
            for row in changed
            if row["day"] not in counted or row["last"] >= counted[row["day"]] - COMMIT_MARGIN
        }
    return sorted(stale)


def day_totals_refresh(*, days: int = TREND_DAYS) -> list[date]:
    """Recompute each day of the trend window that needs it (`days_to_recompute`); returns those days."""
    stale = days_to_recompute(today=timezone.now().astimezone(UTC).date(), days=days)
    for day in stale:
        day_totals_recompute(day=day)
    return stale
