"""Searches and filters prepare no statement (`payments.middleware.plans`): each is planned for its own values, where
a prepared statement's generic plan can read every row (docs/performance.md). Plain pages keep being prepared."""

import pytest
from django.db import connection

from buyers.tests.factories import BuyerFactory
from payments.models import MerchantAccount
from payments.outbox.models import OutboxEvent
from payments.postgresql.preparing import statements_unprepared
from settlements.tests.factories import LedgerEntryFactory

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

# More than psycopg's threshold (5) and PostgreSQL's custom plans before it may choose a generic one (5).
RUNS = 12


def _prepared_naming(table: str, *more: str) -> list[str]:
    """The statements this connection has prepared that name `table` (and every one of `more`)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s", [f'%"{table}"%'])
        return [row[0] for row in cursor.fetchall() if all(each in row[0] for each in more)]


def test_a_desk_search_run_many_times_is_never_prepared(support_client, merchant_account):
    LedgerEntryFactory(merchant_account=merchant_account, processor_reference="ch_4242")

    for _ in range(RUNS):
        page = support_client.get("/admin/settlements/ledgerentry/", {"q": "ch_4242"})
        assert page.status_code == 200
        assert "ch_4242" in page.content.decode()

    assert _prepared_naming("settlements_ledgerentry") == []
    assert connection.connection.prepare_threshold == 5  # as the settings have it, once the request is over


@pytest.mark.parametrize("query", [{"search": "Ada"}, {"search": "Ada", "limit": "5"}, {"external_identifier": "a-1"}])
def test_an_api_filter_run_many_times_is_never_prepared(api_client, merchant_account, query):
    BuyerFactory(merchant_account=merchant_account, display_name="Ada", external_identifier="a-1")
    client = api_client(scopes=["buyers.read"])

    for _ in range(RUNS):
        assert client.get("/buyers", query).status_code == 200

    assert _prepared_naming("buyers_buyer") == []


@pytest.mark.parametrize("query", [{}, {"limit": "20"}])
def test_a_plain_page_run_as_often_is_prepared(api_client, query):
    client = api_client(scopes=["buyers.read"])

    for _ in range(RUNS):
        assert client.get("/buyers", query).status_code == 200

    assert _prepared_naming("buyers_buyer") != []


def test_only_the_blocks_statements_go_unprepared(merchant_account):
    def probe() -> bool:
        return MerchantAccount.objects.filter(display_name="block-probe").exists()

    with statements_unprepared(connection):
        for _ in range(RUNS):
            probe()

    assert _prepared_naming("payments_merchantaccount", "block-probe") == []
    assert connection.connection.prepare_threshold == 5  # as the settings have it
    for _ in range(RUNS):
        probe()
    assert _prepared_naming("payments_merchantaccount") != []


def _run_a_statement_often() -> None:
    """A scheduled job's function (named by SCHEDULED_JOBS below), and a report's run below."""
    for _ in range(RUNS):
        OutboxEvent.objects.filter(name="job-probe").exists()


def test_a_scheduled_job_runs_its_statements_unprepared(settings):
    from payments.jobs.tasks import run_scheduled_job

    settings.SCHEDULED_JOBS = {"probe": {"call": f"{__name__}._run_a_statement_often", "every_seconds": 60}}

    run_scheduled_job.call("probe")

    assert _prepared_naming("payments_outboxevent") == []


def test_a_report_runs_its_statements_unprepared(monkeypatch):
    from reports.services import executions

    monkeypatch.setattr(executions, "report_execution_run", lambda execution_id: _run_a_statement_often())

    executions.run_report_execution.call("any")

    assert _prepared_naming("payments_outboxevent") == []
