"""`manage.py ingest_settlements`: now, or queued for the worker; the scheduled job names the same function."""

from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from settlements.sources import settlement_sources, settlements_ingest
from settlements.tests.test_ingestion import _decided
from transactions.tests.factories import TransactionFactory


def test_it_ingests_now_and_prints_each_file(merchant_account, monkeypatch):
    monkeypatch.setattr(settings, "SANDBOX_SETTLEMENT_LOOKBACK_DAYS", 1)
    txn = TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000)
    _decided(f"{txn.pk}:capture", "capture", 10000, timezone.now() - timedelta(days=1))
    out = StringIO()

    call_command("ingest_settlements", "--source", "mock-card", stdout=out)
    call_command("ingest_settlements", "--source", "mock-card", stdout=out)

    day = (timezone.now() - timedelta(days=1)).date()
    assert out.getvalue() == f"mock-card settlement-{day}.json: ingested, 1 entries, 0 unmatched\n"
    txn.refresh_from_db()
    assert txn.settled_amount == 9680


def test_enqueue_hands_the_scheduled_job_to_the_worker(db):
    call_command("ingest_settlements", "--enqueue", stdout=StringIO())

    assert DBTaskResult.objects.get().args_kwargs["args"] == ["ingest-settlements"]


def test_the_schedule_names_the_ingestion():
    assert settings.SCHEDULED_JOBS["ingest-settlements"]["call"] == "settlements.sources.settlements_ingest"
    assert settlement_sources() == ["mock-card", "stripe-card", "adyen-card", "paypal-paypal"]


def test_an_unknown_source_is_refused_by_name():
    with pytest.raises(ValueError, match="bogus"):
        settlements_ingest(sources=["bogus"])
    with pytest.raises(CommandError):
        call_command("ingest_settlements", "--enqueue", "--source", "mock-card")
