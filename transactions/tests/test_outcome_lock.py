"""The outcome of a create's authorization locks its row by writing it: the status change is written only if the
row is still the copy the request wrote (`Transaction.unchanged_since`), and a row changed since is locked and read
again, the answer recorded on what it now says."""

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from payments.connectors import ConnectorResult, Outcome
from transactions.models import RowChanged, Transaction, TransactionEvent
from transactions.services.authorization import record_authorization
from transactions.services.state import SYSTEM
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

DECLINED = ConnectorResult(outcome=Outcome.DECLINED, processor_reference="ref-1", error_code="issuer_declined")


def _statements(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries.captured_queries]


def test_an_unchanged_row_is_locked_by_its_status_change():
    held = TransactionFactory(status="processing")

    with CaptureQueriesContext(connection) as queries:
        recorded = record_authorization(held, result=DECLINED, card_amount=held.amount, actor=SYSTEM)

    assert recorded is held
    assert Transaction.objects.get(pk=held.pk).status == "authorization_declined"
    statements = _statements(queries)
    assert not [sql for sql in statements if sql.startswith('SELECT "transactions_transaction"')]  # no lock, no read
    (update,) = [sql for sql in statements if sql.startswith('UPDATE "transactions_transaction"')]
    assert '"updated_at" = ' in update.split("WHERE", 1)[1]  # the write carries the check


def test_a_row_changed_since_is_read_again_and_keeps_its_change():
    held = TransactionFactory(status="processing")
    elsewhere = Transaction.objects.get(pk=held.pk)
    elsewhere.status = "authorization_voided"  # canceled while the processor was deciding
    elsewhere.save(update_fields=["status", "updated_at"])

    recorded = record_authorization(held, result=DECLINED, card_amount=held.amount, actor=SYSTEM)

    assert recorded is not held
    assert recorded.status == Transaction.objects.get(pk=held.pk).status == "authorization_voided"
    names = TransactionEvent.objects.filter(transaction_id=held.pk).values_list("name", flat=True)
    assert list(names) == ["authorization_after_cancel"]


def test_the_condition_is_for_one_save_only():
    held = TransactionFactory(status="processing")
    Transaction.objects.filter(pk=held.pk).update(metadata={"changed": "elsewhere"})
    stale = held.updated_at
    Transaction.objects.filter(pk=held.pk).update(updated_at=stale.replace(year=stale.year - 1))

    held.unchanged_since = stale
    with pytest.raises(RowChanged), transaction.atomic():
        held.save(update_fields=["status", "updated_at"])

    assert held.unchanged_since is None
    held.save(update_fields=["status", "updated_at"])  # unconditional again
    assert Transaction.objects.get(pk=held.pk).updated_at == held.updated_at


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_cancel_holding_the_lock_makes_the_outcome_wait_then_stand():
    held = TransactionFactory(status="processing")
    cancel_locked, cancel_may_commit = threading.Event(), threading.Event()
    recorded: dict[str, Transaction] = {}

    def cancel() -> None:
        try:
            with transaction.atomic():
                row = Transaction.objects.select_for_update().get(pk=held.pk)
                row.status = "authorization_voided"
                row.save(update_fields=["status", "updated_at"])
                cancel_locked.set()
                cancel_may_commit.wait(30)
        finally:
            connection.close()

    def record() -> None:
        try:
            recorded["txn"] = record_authorization(held, result=DECLINED, card_amount=held.amount, actor=SYSTEM)
        finally:
            connection.close()

    canceling = threading.Thread(target=cancel)
    canceling.start()
    assert cancel_locked.wait(30)
    recording = threading.Thread(target=record)
    recording.start()
    recording.join(0.5)
    assert recording.is_alive()  # its UPDATE waits for the cancel's lock
    cancel_may_commit.set()
    canceling.join(30)
    recording.join(30)

    assert recorded["txn"].status == Transaction.objects.get(pk=held.pk).status == "authorization_voided"
    names = TransactionEvent.objects.filter(transaction_id=held.pk).values_list("name", flat=True)
    assert list(names) == ["authorization_after_cancel"]
