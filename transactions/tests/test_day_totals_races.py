"""Two counts of one day at once, as the worker's refresh and the backfill command may run, against PostgreSQL: they
take turns on the day's row, and the day's totals are one count, not two."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from payments.tests.races import at_once
from transactions.models import Transaction, TransactionDayRollup, TransactionDayTotal
from transactions.services.day_totals import day_totals_recompute
from transactions.tests.factories import TransactionFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_counts_of_one_day_at_once_leave_one_count(merchant_account):
    moment = timezone.now() - timedelta(days=2)
    for amount in (1000, 2500):
        txn = TransactionFactory(merchant_account=merchant_account, captured=True, amount=amount)
        Transaction.objects.filter(pk=txn.pk).update(created_at=moment, updated_at=moment)
    day = moment.astimezone(UTC).date()

    at_once([lambda: day_totals_recompute(day=day)] * 4)

    assert list(TransactionDayTotal.objects.values_list("count", "amount")) == [(2, 3500)]
    assert TransactionDayRollup.objects.filter(day=day).count() == 1
