"""Crash safety in one process: a request whose process dies mid-create (`ProcessKilled`, which no handler
catches) leaves its transaction pending and its Idempotency-Key claimed. `POST /transactions/{id}/sync`, the
recovery command and the client's retry after the key's lease each resolve it exactly once, from what the
processor recorded. The same with real gunicorn workers killed by SIGKILL: tests/test_worker_kill.py."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from giftcards.models import IssuedGiftCard
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.connectors import AuthorizationRequest, CardDetails
from payments.connectors.models import SandboxOperation
from payments.rest.models import IdempotencyRecord
from transactions.models import Refund, Transaction, TransactionStatus
from transactions.services.actions import transaction_capture
from transactions.services.authorization import record_authorization
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM
from transactions.tests.conftest import CARD
from transactions.tests.connectors import ProcessKilled
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_api import SDK_DEFAULTS, assert_error, post

pytestmark = pytest.mark.django_db

S = TransactionStatus


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def gift_card(merchant_account) -> IssuedGiftCard:
    return IssuedGiftCardFactory(merchant_account=merchant_account, amount=1000)


def body(gift_card: IssuedGiftCard, **fields) -> dict:
    gift_cards = [{"number": gift_card.number, "pin": gift_card.pin, "amount": 400}]
    return {
        "amount": 1500,
        "currency": "USD",
        "payment_method": CARD,
        "gift_cards": gift_cards,
        **SDK_DEFAULTS,
        **fields,
    }


def balance(card: IssuedGiftCard) -> int:
    return IssuedGiftCard.objects.get(pk=card.pk).balance


def killed_create(client, gift_card, connector, *, after_deciding: bool, key: str | None = "order-1") -> Transaction:
    """POST /transactions whose process dies in the authorization, before or after the processor decided."""
    if after_deciding:
        connector.killed_after = {"authorize"}
    else:
        connector.script["authorize"] = ProcessKilled
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    with pytest.raises(ProcessKilled):
        post(client, "/transactions", body(gift_card), **headers)
    connector.killed_after, connector.script = set(), {}
    txn = Transaction.objects.get()
    assert txn.status == S.PROCESSING
    assert balance(gift_card) == 600  # the gift card part is held
    return txn


def age(txn: Transaction, seconds: int = 3600) -> None:
    """Make the transaction look pending for `seconds` (no request can still be working on it)."""
    Transaction.objects.filter(pk=txn.pk).update(updated_at=timezone.now() - timedelta(seconds=seconds))


def expire_lease(key: str = "order-1") -> None:
    IdempotencyRecord.objects.filter(key=key).update(locked_until=timezone.now() - timedelta(seconds=1))


# --- POST /transactions/{id}/sync -------------------------------------------------------------------------


def test_sync_records_an_approval_the_processor_made_before_the_crash(client, gift_card, connector):
    txn = killed_create(client, gift_card, connector, after_deciding=True)

    response = post(client, f"/transactions/{txn.id}/sync", None)

    assert response.status_code == 200, response.content
    data = response.json()
    assert (data["id"], data["status"]) == (str(txn.id), S.AUTHORIZATION_SUCCEEDED)
    assert data["authorized_amount"] == 1100
    assert data["payment_service_transaction_id"] == f"sandbox-authorization-{txn.id}"
    assert balance(gift_card) == 600  # the gift card part is kept, as for any approval


def test_sync_leaves_a_young_undecided_transaction_pending(client, gift_card, connector):
    txn = killed_create(client, gift_card, connector, after_deciding=False)

    response = post(client, f"/transactions/{txn.id}/sync", None)

    assert response.status_code == 200
    assert response.json()["status"] == S.PROCESSING  # its request may still be running
    assert balance(gift_card) == 600


def test_sync_fails_an_abandoned_authorization_the_processor_never_received(client, gift_card, connector):
    txn = killed_create(client, gift_card, connector, after_deciding=False)
    age(txn)

    response = post(client, f"/transactions/{txn.id}/sync", None)

    data = response.json()
    assert (data["status"], data["error_code"]) == (S.AUTHORIZATION_FAILED, "service_error")
    assert data["gift_card_redemptions"][0]["status"] == "failed"
    assert balance(gift_card) == 1000  # every cent back


def test_sync_of_a_settled_transaction_changes_nothing(client, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True)

    response = post(client, f"/transactions/{txn.id}/sync", None)

    assert response.status_code == 200
    assert response.json()["status"] == S.CAPTURE_SUCCEEDED
    assert txn.events.count() == 0


@pytest.mark.parametrize(
    ("scopes", "status"),
    [(["transactions.read"], 200), (["*.read"], 200), (["transactions.write"], 403), (["buyers.read"], 403)],
    ids=["read", "wildcard-read", "write-only", "other-resource"],
)
def test_sync_needs_a_transactions_read_scope(api_client, merchant_account, scopes, status):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)

    response = post(api_client(scopes=scopes), f"/transactions/{txn.id}/sync", None)

    assert response.status_code == status


@pytest.mark.parametrize("which", ["unknown", "malformed", "other-account"])
def test_sync_of_a_transaction_the_caller_cannot_see_is_a_404(client, other_merchant_account, which):
    other = TransactionFactory(merchant_account=other_merchant_account)
    target = {"unknown": "6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11", "malformed": "nope", "other-account": other.id}

    assert_error(post(client, f"/transactions/{target[which]}/sync", None), 404)
    assert Transaction.objects.get(pk=other.pk).status == S.PROCESSING


def test_an_answer_arriving_after_a_sync_recorded_it_changes_nothing(client, gift_card, connector):
    # The sync runs while the original request is still waiting for the same approval.
    txn = killed_create(client, gift_card, connector, after_deciding=True)
    transaction_sync(txn=txn, actor=SYSTEM)

    result = connector().lookup(reference=str(txn.pk))
    record_authorization(txn, result=result, card_amount=1100, actor=SYSTEM)

    txn.refresh_from_db()
    assert txn.status == S.AUTHORIZATION_SUCCEEDED
    assert not any(name == "void" for name, _ in connector.calls)


def test_an_approval_arriving_after_a_sync_gave_up_is_voided(
    client, gift_card, connector, django_capture_on_commit_callbacks
):
    # Only if the original request outlived every bound: the sync's verdict stands, the late approval is released.
    txn = killed_create(client, gift_card, connector, after_deciding=False)
    transaction_sync(txn=txn, actor=SYSTEM, abandoned=True)
    card = CardDetails(number="4111111111111111", expiration_month=12, expiration_year=2039)
    late = connector().authorize(
        AuthorizationRequest(card=card, amount=1100, currency="USD", capture=False, reference=str(txn.pk))
    )

    with django_capture_on_commit_callbacks(execute=True):
        record_authorization(txn, result=late, card_amount=1100, actor=SYSTEM)

    txn.refresh_from_db()
    assert txn.status == S.AUTHORIZATION_FAILED
    assert balance(gift_card) == 1000
    assert [name for name, _ in connector.calls][-1] == "void"


@pytest.mark.parametrize("recorded", [True, False], ids=["processor-captured", "never-received"])
def test_sync_resolves_a_capture_left_pending(client, merchant_account, connector, recorded):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    connector.killed_after = {"capture"} if recorded else set()
    connector.script = {} if recorded else {"capture": ProcessKilled}
    with pytest.raises(ProcessKilled):
        transaction_capture(txn=txn, actor=SYSTEM, amount=500)
    connector.killed_after, connector.script = set(), {}
    age(txn)

    synced = transaction_sync(txn=txn, actor=SYSTEM)

    if recorded:
        assert (synced.status, synced.captured_amount) == (S.CAPTURE_SUCCEEDED, 500)
    else:
        assert (synced.status, synced.captured_amount) == (S.AUTHORIZATION_SUCCEEDED, 0)


@pytest.mark.parametrize("recorded", [True, False], ids=["processor-voided", "never-received"])
def test_sync_resolves_a_void_left_pending(client, merchant_account, gift_card, connector, recorded):
    create = post(client, "/transactions", body(gift_card))
    txn = Transaction.objects.get(pk=create.json()["id"])
    connector.killed_after = {"void"} if recorded else set()
    connector.script = {} if recorded else {"void": ProcessKilled}
    with pytest.raises(ProcessKilled):
        post(client, f"/transactions/{txn.id}/void", None)
    connector.killed_after, connector.script = set(), {}
    age(txn)

    synced = transaction_sync(txn=txn, actor=SYSTEM)

    expected = S.AUTHORIZATION_VOIDED if recorded else S.AUTHORIZATION_SUCCEEDED
    assert synced.status == expected
    assert balance(gift_card) == (1000 if recorded else 600)


# --- the retry with the same Idempotency-Key ------------------------------------------------------------------


@pytest.mark.parametrize("after_deciding", [True, False], ids=["after-decision", "before-decision"])
def test_a_retry_after_the_lease_completes_the_create_exactly_once(client, gift_card, connector, after_deciding):
    txn = killed_create(client, gift_card, connector, after_deciding=after_deciding)

    in_flight = post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")
    assert_error(in_flight, 409, "/idempotency-key")  # the lease still runs: the request might be alive
    expire_lease()
    retry = post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")
    again = post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")

    assert retry.status_code == 201, retry.content
    assert retry.json()["id"] == str(txn.id)
    assert Transaction.objects.count() == 1
    expected = S.AUTHORIZATION_SUCCEEDED if after_deciding else S.AUTHORIZATION_FAILED
    assert retry.json()["status"] == expected
    assert balance(gift_card) == (600 if after_deciding else 1000)
    assert again.content == retry.content
    assert again["Idempotent-Replayed"] == "true"
    record = IdempotencyRecord.objects.get(key="order-1")
    assert (record.state, record.attempts, record.reserved_id) == ("completed", 2, txn.id)
    assert [name for name, _ in connector.calls].count("authorize") == 1  # never authorized twice


def test_a_retry_after_a_crash_before_anything_was_written_creates_it(client, gift_card, connector, monkeypatch):
    import transactions.services.create as services

    def killed(*args, **kwargs):
        raise ProcessKilled("the process died while opening the transaction")

    monkeypatch.setattr(services, "_open", killed)
    with pytest.raises(ProcessKilled):
        post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")
    monkeypatch.undo()
    assert not Transaction.objects.exists()
    reserved = IdempotencyRecord.objects.get(key="order-1").reserved_id
    expire_lease()

    retry = post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")

    assert retry.status_code == 201, retry.content
    assert retry.json()["id"] == str(reserved)
    assert retry.json()["status"] == S.AUTHORIZATION_SUCCEEDED
    assert balance(gift_card) == 600


def test_a_retry_after_a_crash_once_the_answer_was_recorded_answers_it(client, gift_card, connector, monkeypatch):
    from payments.rest import idempotency

    def killed(**kwargs):
        raise ProcessKilled("the process died before storing the answer")

    monkeypatch.setattr(idempotency, "idempotency_complete", killed)
    with pytest.raises(ProcessKilled):
        post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")
    monkeypatch.undo()
    txn = Transaction.objects.get()
    assert txn.status == S.AUTHORIZATION_SUCCEEDED
    expire_lease()

    retry = post(client, "/transactions", body(gift_card), HTTP_IDEMPOTENCY_KEY="order-1")

    assert retry.status_code == 201
    assert (retry.json()["id"], retry.json()["status"]) == (str(txn.id), S.AUTHORIZATION_SUCCEEDED)
    assert Transaction.objects.count() == 1
    assert balance(gift_card) == 600


def test_of_two_retries_racing_for_a_dead_key_one_resumes(client, gift_card, connector, merchant_account):
    from payments.rest.idempotency import IdempotencyKeyInUse, idempotency_claim

    killed_create(client, gift_card, connector, after_deciding=True)
    expire_lease()
    record = IdempotencyRecord.objects.get(key="order-1")

    first, claimed = idempotency_claim(merchant_account=merchant_account, key="order-1", fingerprint=record.fingerprint)
    with pytest.raises(IdempotencyKeyInUse):
        idempotency_claim(merchant_account=merchant_account, key="order-1", fingerprint=record.fingerprint)

    assert claimed
    assert first.attempts == 2


@pytest.mark.parametrize("recorded", [True, False], ids=["processor-captured", "never-received"])
def test_a_retried_capture_after_the_lease_captures_exactly_once(client, merchant_account, connector, recorded):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    connector.killed_after = {"capture"} if recorded else set()
    connector.script = {} if recorded else {"capture": ProcessKilled}
    with pytest.raises(ProcessKilled):
        post(client, f"/transactions/{txn.id}/capture", {"amount": 500}, HTTP_IDEMPOTENCY_KEY="capture-1")
    connector.killed_after, connector.script = set(), {}
    expire_lease("capture-1")

    retry = post(client, f"/transactions/{txn.id}/capture", {"amount": 500}, HTTP_IDEMPOTENCY_KEY="capture-1")

    assert retry.status_code == 200, retry.content
    assert (retry.json()["status"], retry.json()["captured_amount"]) == (S.CAPTURE_SUCCEEDED, 500)
    captures = [name for name, _ in connector.calls].count("capture")
    assert captures == (1 if recorded else 2)  # asked again only when the processor never heard of it
    assert SandboxOperation.objects.filter(operation="capture").count() == 1


@pytest.mark.parametrize("recorded", [True, False], ids=["processor-voided", "never-received"])
def test_a_retried_void_after_the_lease_voids_exactly_once(client, gift_card, connector, recorded):
    txn_id = post(client, "/transactions", body(gift_card)).json()["id"]
    connector.killed_after = {"void"} if recorded else set()
    connector.script = {} if recorded else {"void": ProcessKilled}
    with pytest.raises(ProcessKilled):
        post(client, f"/transactions/{txn_id}/void", None, HTTP_IDEMPOTENCY_KEY="void-1")
    connector.killed_after, connector.script = set(), {}
    expire_lease("void-1")

    retry = post(client, f"/transactions/{txn_id}/void", None, HTTP_IDEMPOTENCY_KEY="void-1")

    assert retry.status_code == 200, retry.content
    assert retry.json()["status"] == S.AUTHORIZATION_VOIDED
    assert balance(gift_card) == 1000
    assert SandboxOperation.objects.filter(operation="void").count() == 1


@pytest.mark.parametrize("recorded", [True, False], ids=["processor-refunded", "never-received"])
def test_a_retried_refund_of_everything_after_the_lease_refunds_exactly_once(client, gift_card, connector, recorded):
    txn_id = post(client, "/transactions", body(gift_card, intent="capture")).json()["id"]
    connector.killed_after = {"refund"} if recorded else set()
    connector.script = {} if recorded else {"refund": ProcessKilled}
    with pytest.raises(ProcessKilled):
        post(client, f"/transactions/{txn_id}/refunds/all", {}, HTTP_IDEMPOTENCY_KEY="refund-1")
    connector.killed_after, connector.script = set(), {}
    made = sorted(str(pk) for pk in Refund.objects.values_list("pk", flat=True))
    expire_lease("refund-1")

    retry = post(client, f"/transactions/{txn_id}/refunds/all", {}, HTTP_IDEMPOTENCY_KEY="refund-1")

    assert retry.status_code == 201, retry.content
    assert sorted(item["id"] for item in retry.json()["items"]) == made  # the first attempt's refunds, no others
    card = {item["target_type"]: item["status"] for item in retry.json()["items"]}["payment-method"]
    # Never sent again: a refund the processor has no record of waits, counted, for the operator.
    assert card == ("succeeded" if recorded else "processing")
    assert [name for name, _ in connector.calls].count("refund") == 1
    assert SandboxOperation.objects.filter(operation="refund").count() == (1 if recorded else 0)
    assert balance(gift_card) == 1000  # its 400 back once
    assert Transaction.objects.get(pk=txn_id).refunded_amount == 1100


# --- the recovery job -------------------------------------------------------------------------------------------


def test_recovery_resolves_every_abandoned_transaction_and_no_young_one(client, merchant_account, connector):
    cards = [IssuedGiftCardFactory(merchant_account=merchant_account, amount=1000) for _ in range(3)]
    decided = []
    for index, card in enumerate(cards):
        connector.killed_after = {"authorize"} if index == 0 else set()
        connector.script = {} if index == 0 else {"authorize": ProcessKilled}
        with pytest.raises(ProcessKilled):
            post(client, "/transactions", body(card))
        decided.append(index == 0)
    connector.killed_after, connector.script = set(), {}
    stuck = list(Transaction.objects.order_by("created_at"))
    for txn in stuck[:2]:
        age(txn)

    out = io.StringIO()
    call_command("recover_transactions", stdout=out)

    statuses = [Transaction.objects.get(pk=txn.pk).status for txn in stuck]
    assert statuses == [S.AUTHORIZATION_SUCCEEDED, S.AUTHORIZATION_FAILED, S.PROCESSING]
    assert [balance(card) for card in cards] == [600, 1000, 600]
    assert transactions_recover_pending().resolved == []  # the young one waits for its request
    assert "2 transaction(s) pending for more than 90s resolved" in out.getvalue()


def test_the_workers_run_recovery_on_their_schedule(client, gift_card, connector):
    from payments.jobs.schedule import scheduled_jobs
    from payments.jobs.tasks import run_scheduled_job

    txn = killed_create(client, gift_card, connector, after_deciding=True)
    age(txn)
    job = scheduled_jobs()["recover-pending-transactions"]

    run_scheduled_job.call(job.name)

    assert job.function() is transactions_recover_pending
    assert Transaction.objects.get(pk=txn.pk).status == S.AUTHORIZATION_SUCCEEDED


def test_recovery_skips_a_transaction_whose_processor_cannot_be_asked(client, gift_card, connector, monkeypatch):
    txn = killed_create(client, gift_card, connector, after_deciding=True)
    age(txn)
    monkeypatch.setattr(type(connector()), "lookup", lambda self, reference: (_ for _ in ()).throw(OSError("down")))

    recovery = transactions_recover_pending()

    assert (recovery.resolved, recovery.failed) == ([], [txn.pk])
    assert Transaction.objects.get(pk=txn.pk).status == S.PROCESSING


def test_the_sandbox_remembers_what_it_decided(connector):
    from paymentservices.processors.sandbox import SandboxConnector

    sandbox = SandboxConnector()
    card = CardDetails(number="4000000000000002", expiration_month=12, expiration_year=2039)
    answer = sandbox.authorize(
        AuthorizationRequest(card=card, amount=100, currency="USD", capture=False, reference="ref-1")
    )

    assert sandbox.lookup(reference="ref-1") == answer
    assert sandbox.lookup(reference="ref-2") is None
    assert SandboxOperation.objects.get(reference="ref-1").operation == "authorization"
