"""The sources are the registry's processors that declare settlement records: one driver asks each the same way, and
the ledger names a line's source by its processor's id, so a new processor needs no change here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import settlements.sources as sources
from paymentservices import processors
from paymentservices.processors import PROCESSORS, paypal, stripe
from paymentservices.processors.seam import Processor
from paymentservices.processors.settling import Ledger, LineKind, PulledFile, SettledLine, Settlements
from paymentservices.tests.factories import PaymentServiceFactory
from settlements.models import LedgerEntry
from settlements.services import Outcome


class OneFeeALine(Settlements):
    """Answers one file per service, a fee line, until the ledger holds it."""

    pulls = True

    def read(self, content: bytes) -> list[SettledLine]:
        return [
            SettledLine(
                entry_key=content.decode(),
                kind=LineKind.FEE,
                processor_type="fee",
                amount=100,
                currency="EUR",
                net_amount=-100,
                net_currency="EUR",
                posted_at=datetime(2026, 3, 2, tzinfo=UTC),
            )
        ]

    def pull(self, *, credentials: Mapping[str, str], ledger: Ledger) -> Iterator[PulledFile]:
        if not ledger.known(["fee-1"]):
            yield PulledFile("fees", "fee-1.txt", b"fee-1")


def test_a_processor_that_pulls_is_asked_for_each_of_its_services_and_its_lines_carry_its_id(db, monkeypatch):
    service = PaymentServiceFactory()
    monkeypatch.setattr(type(stripe.PROCESSOR), "settlements", OneFeeALine())

    [result] = sources.settlements_ingest(sources=["stripe-card"])["stripe-card"]

    assert (result.outcome, result.entries) == (Outcome.INGESTED, 1)
    entry = LedgerEntry.objects.get()
    assert (entry.source, entry.report.source, entry.report.name) == (
        "stripe-card",
        "stripe-card",
        f"fees {service.pk}",
    )
    assert sources.settlements_ingest(sources=["stripe-card"])["stripe-card"] == []  # read down to the ledger


def test_the_sources_follow_the_registry(monkeypatch):
    class Elsewhere(Processor):
        id = "elsewhere-card"
        display_name = "Elsewhere"
        fields = ()
        features: Mapping[str, bool] = {}
        settlements = OneFeeALine()

        def connect(self, credentials, deadline=None):
            raise NotImplementedError

        def verify(self, credentials):
            return None

    monkeypatch.setattr(processors, "PROCESSORS", (*PROCESSORS, Elsewhere()))

    assert sources.settlement_sources() == ["mock-card", "stripe-card", "adyen-card", "paypal-paypal", "elsewhere-card"]
    assert "elsewhere-card" in sources.settlement_definition_ids()
    monkeypatch.setattr(type(paypal.PROCESSOR), "settlements", None)
    assert "paypal-paypal" not in sources.settlement_sources()  # once it declares no settlement records


@pytest.mark.django_db(transaction=True)
def test_the_sources_named_before_are_renamed_to_their_processors_ids():
    executor = MigrationExecutor(connection)
    executor.migrate([("settlements", "0004_ledger_entry_mismatch")])
    apps = executor.loader.project_state([("settlements", "0004_ledger_entry_mismatch")]).apps
    account = apps.get_model("payments", "MerchantAccount").objects.create(id="renamed", display_name="Renamed")
    report = apps.get_model("settlements", "SettlementReport")
    for old in ("sandbox", "stripe", "adyen"):
        report.objects.create(merchant_account_id=account.pk, source=old, name=f"a report of {old}")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from settlements.models import SettlementReport

    assert sorted(SettlementReport.objects.values_list("source", flat=True)) == [
        "adyen-card",
        "mock-card",
        "stripe-card",
    ]
