"""`POST /transactions/{id}/sync`, and a retry resuming a request whose process died, while the processor cannot be
asked what it did (`OutcomeUnknown`): the transaction is answered as it stands, nothing changed, and the pending
sweep settles it later. A 5xx would tell the client its request may not have happened."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from payments.connectors import OutcomeUnknown
from transactions.models import Capture, Transaction, TransactionEvent, TransactionStatus
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM
from transactions.tests.connectors import ProcessKilled, ScriptedConnector
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_api import post
from transactions.tests.test_crash_recovery import balance, body, expire_lease, gift_card, killed_create

pytestmark = pytest.mark.django_db

__all__ = ["gift_card"]  # the fixture, shared with the crash tests

S = TransactionStatus


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def unreachable(monkeypatch):
    """The processor cannot be asked what it did (its list timed out, its host is down)."""

    def cannot_be_asked(self, *, reference: str):
        raise OutcomeUnknown("The processor cannot be asked now.")

    monkeypatch.setattr(ScriptedConnector, "lookup", cannot_be_asked)
    return monkeypatch


def _events(txn_id) -> list[str]:
    return list(
        TransactionEvent.objects.filter(transaction_id=txn_id).order_by("created_at").values_list("name", flat=True)
    )


def test_sync_while_the_processor_cannot_be_asked_answers_the_transaction_as_it_stands(
    client, gift_card, connector, unreachable
):
    txn = killed_create(client, gift_card, connector, after_deciding=True)
    before = _events(txn.pk)

    response = post(client, f"/transactions/{txn.pk}/sync", None)

    assert response.status_code == 200, response.content
    assert response.json()["status"] == S.PROCESSING
    assert _events(txn.pk) == before  # nothing changed
    assert balance(gift_card) == 600  # the gift card part stays held
    # The sweep finds it unanswered too and leaves it for its next run; once the processor answers, it settles.
    later = timezone.now() + timedelta(hours=1)
    assert transactions_recover_pending(now=later).failed == [txn.pk]
    unreachable.undo()
    assert transactions_recover_pending(now=later).resolved[0].status == S.AUTHORIZATION_SUCCEEDED


def test_a_retried_create_while_the_processor_cannot_be_asked_answers_it_as_it_stands(
    client, gift_card, connector, unreachable
):
    txn = killed_create(client, gift_card, connector, after_deciding=False)
    expire_lease()

    retry = post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")

    assert retry.status_code == 201, retry.content
    assert (retry.json()["id"], retry.json()["status"]) == (str(txn.pk), S.PROCESSING)
    assert Transaction.objects.count() == 1
    assert [name for name, _ in connector.calls].count("authorize") == 1  # never asked twice


@pytest.mark.parametrize("prefer", [False, True], ids=["transaction", "wrapper"])
def test_a_retried_capture_while_the_processor_cannot_be_asked_answers_capture_pending(
    client, merchant_account, connector, unreachable, prefer
):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    headers = {"HTTP_PREFER": "resource=transaction-capture"} if prefer else {}
    connector.killed_after = {"capture"}
    with pytest.raises(ProcessKilled):
        post(client, f"/transactions/{txn.pk}/capture", {"amount": 500}, HTTP_IDEMPOTENCY_KEY="capture-1", **headers)
    connector.killed_after = set()
    expire_lease("capture-1")

    retry = post(
        client, f"/transactions/{txn.pk}/capture", {"amount": 500}, HTTP_IDEMPOTENCY_KEY="capture-1", **headers
    )

    assert retry.status_code == 200, retry.content
    answered = retry.json()["transaction"] if prefer else retry.json()
    assert (answered["status"], answered["captured_amount"]) == (S.CAPTURE_PENDING, 0)
    if prefer:
        assert (retry.json()["status"], retry.json()["capture_id"]) == ("pending", str(Capture.objects.get().pk))
    assert [name for name, _ in connector.calls].count("capture") == 1  # not asked again
    unreachable.undo()
    settled = transactions_recover_pending(now=timezone.now() + timedelta(hours=1)).resolved
    assert (settled[0].status, settled[0].captured_amount) == (S.CAPTURE_SUCCEEDED, 500)


def test_a_retried_void_while_the_processor_cannot_be_asked_answers_void_pending(
    client, gift_card, connector, unreachable
):
    txn_id = post(client, "/transactions", body(gift_card)).json()["id"]
    headers = {"HTTP_IDEMPOTENCY_KEY": "void-1", "HTTP_PREFER": "resource=transaction-void"}
    connector.killed_after = {"void"}
    with pytest.raises(ProcessKilled):
        post(client, f"/transactions/{txn_id}/void", None, **headers)
    connector.killed_after = set()
    expire_lease("void-1")

    retry = post(client, f"/transactions/{txn_id}/void", None, **headers)

    assert retry.status_code == 200, retry.content
    assert (retry.json()["status"], retry.json()["transaction"]["status"]) == ("pending", S.AUTHORIZATION_VOID_PENDING)
    assert balance(gift_card) == 600  # returned only once the void is known
    assert [name for name, _ in connector.calls].count("void") == 1


def test_a_refund_answer_that_arrives_after_a_sync_recorded_it_is_not_recorded_twice(
    client, merchant_account, connector, monkeypatch
):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True)
    refund_at_processor = ScriptedConnector.refund

    def refunded_while_a_sync_ran(self, **kwargs):
        result = refund_at_processor(self, **kwargs)  # the processor refunds and keeps its record
        transaction_sync(txn=Transaction.objects.get(pk=txn.pk), actor=SYSTEM)  # a sync records it meanwhile
        return result

    monkeypatch.setattr(ScriptedConnector, "refund", refunded_while_a_sync_ran)

    response = post(client, f"/transactions/{txn.pk}/refunds", {"amount": 300})

    assert (response.status_code, response.json()["status"]) == (201, "succeeded")
    assert _events(txn.pk).count("refund_succeeded") == 1
    assert Transaction.objects.get(pk=txn.pk).refunded_amount == 300


@pytest.mark.django_db(transaction=True)
def test_a_cancel_whose_release_the_processor_does_not_answer_is_not_a_500(client, merchant_account, connector):
    """The cancel is committed; releasing what the processor holds is best effort after it, and may be unanswered."""
    txn = TransactionFactory(
        merchant_account=merchant_account,
        status=S.BUYER_APPROVAL_PENDING,
        payment_service_transaction_id="sandbox-authorization-waiting",
    )
    connector.script["void"] = OutcomeUnknown

    response = post(client, f"/transactions/{txn.pk}/cancel")

    assert response.status_code == 200, response.content
    assert response.json()["transaction"]["status"] == S.AUTHORIZATION_VOIDED
    assert [name for name, _ in connector.calls] == ["void"]  # asked, once
