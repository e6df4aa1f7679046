"""`POST /transactions/{id}/authorization/increment`: the sandbox raises an authorization (Adyen in its folder's
tests), a refusal changes no amount, a processor that cannot is refused by name, and captures wait for it."""

from datetime import timedelta

import pytest
from django.utils import timezone
from gr4vy import models as sdk_models
from gr4vy.utils import unmarshal_json

from payments.connectors import Outcome
from payments.outbox.models import OutboxEvent
from payments.tests.assertions import assert_error
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction
from transactions.services.increments import transaction_increment_authorization
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM
from transactions.tests.connectors import ProcessKilled
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_api import create, post
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def _increment(client, transaction_id, amount):
    return post(client, f"/transactions/{transaction_id}/authorization/increment", {"amount": amount})


def test_the_sandbox_raises_the_authorization_and_the_amount(client):
    txn = create(client, amount=1000)

    response = _increment(client, txn["id"], 250)

    assert response.status_code == 200, response.content
    answer = response.json()
    assert (answer["type"], answer["status"], answer["code"]) == (
        "transaction-authorization-increment",
        "succeeded",
        None,
    )
    assert (answer["transaction"]["amount"], answer["transaction"]["authorized_amount"]) == (1250, 1250)
    assert isinstance(
        unmarshal_json(response.content.decode(), sdk_models.TransactionAuthorizationIncrement),
        sdk_models.TransactionAuthorizationIncrement,
    )
    captured = post(client, f"/transactions/{txn['id']}/capture", {}).json()
    assert (captured["status"], captured["captured_amount"]) == ("capture_succeeded", 1250)
    names = [event.name for event in Transaction.objects.get(pk=txn["id"]).events.all()]
    at = names.index("authorization_increment_requested")
    assert names[at : at + 2] == ["authorization_increment_requested", "authorization_incremented"]


def test_a_refused_increment_changes_no_amount(client, connector):
    txn = create(client, amount=1000)
    connector.script["increment"] = Outcome.DECLINED

    answer = _increment(client, txn["id"], 250).json()

    assert (answer["status"], answer["code"], answer["raw_response_code"]) == ("failed", "issuer_decline", "05")
    stored = Transaction.objects.get(pk=txn["id"])
    assert (stored.amount, stored.authorized_amount, stored.increment_pending_since) == (1000, 1000, None)


def test_a_processor_that_cannot_increment_is_refused_by_name(client, merchant_account):
    stripe = PaymentServiceFactory(merchant_account=merchant_account)
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True, payment_service=stripe)

    body = assert_error(_increment(client, txn.pk, 100), 400)

    assert "incremental authorization with Stripe (stripe-card)" in body["message"]
    txn.refresh_from_db()
    assert (txn.amount, txn.authorized_amount, txn.events.count()) == (1299, 1299, 0)


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [({}, "/amount"), ({"amount": 0}, "/amount"), ({"amount": "5"}, "/amount"), ({"amount": 99999999}, "/amount")],
    ids=["missing", "zero", "text", "past-the-largest"],
)
def test_bad_amounts_are_400s_and_change_nothing(client, payload, pointer):
    txn = create(client, amount=1000)

    response = post(client, f"/transactions/{txn['id']}/authorization/increment", payload)

    assert_error(response, 400, pointer)
    assert Transaction.objects.get(pk=txn["id"]).authorized_amount == 1000


def test_only_an_uncaptured_authorization_is_incremented(client):
    txn = create(client, intent="capture")

    assert "already been captured" in assert_error(_increment(client, txn["id"], 100), 409)["message"]


def test_captures_and_voids_wait_for_an_increment_under_way(client, merchant_account, settings):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    Transaction.objects.filter(pk=txn.pk).update(increment_pending_since=timezone.now())

    for action in ("capture", "void"):
        refused = post(client, f"/transactions/{txn.pk}/{action}", {})
        assert "an increment of its authorization is in progress" in assert_error(refused, 409)["message"]
    assert_error(_increment(client, txn.pk, 100), 409)
    # One whose request died long ago holds nothing back.
    died = timezone.now() - timedelta(seconds=settings.PENDING_TRANSACTION_RECOVERY_SECONDS + 1)
    Transaction.objects.filter(pk=txn.pk).update(increment_pending_since=died)
    assert post(client, f"/transactions/{txn.pk}/capture", {}).json()["status"] == "capture_succeeded"


@pytest.mark.parametrize(("scopes", "status"), [(["transactions.read"], 403), (["transactions.write"], 200)])
def test_incrementing_needs_transactions_write(api_client, merchant_account, scopes, status):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)

    assert _increment(api_client(scopes=scopes), txn.pk, 100).status_code == status


def _killed_increment(transaction_id: str) -> Transaction:
    with pytest.raises(ProcessKilled):
        transaction_increment_authorization(txn=Transaction.objects.get(pk=transaction_id), actor=SYSTEM, amount=250)
    stored = Transaction.objects.get(pk=transaction_id)
    assert (stored.authorized_amount, stored.increment_pending_since is not None) == (1000, True)
    return stored


def test_sync_records_an_increment_the_processor_made_before_the_request_died(client, connector):
    txn = create(client, amount=1000)
    connector.killed_after = {"increment"}
    _killed_increment(txn["id"])
    connector.killed_after = set()

    synced = post(client, f"/transactions/{txn['id']}/sync").json()

    assert (synced["authorized_amount"], synced["amount"]) == (1250, 1250)
    assert Transaction.objects.get(pk=txn["id"]).increment_pending_since is None


def test_an_increment_that_never_reached_the_processor_ends_once_abandoned(client, connector):
    txn = create(client, amount=1000)
    connector.script["increment"] = ProcessKilled
    stored = _killed_increment(txn["id"])

    assert transaction_sync(txn=stored, actor=SYSTEM, abandoned=False).increment_pending_since is not None
    ended = transaction_sync(txn=stored, actor=SYSTEM, abandoned=True)

    assert (ended.authorized_amount, ended.amount, ended.increment_pending_since) == (1000, 1000, None)
    assert ended.events.filter(name="authorization_increment_failed").count() == 1


def test_the_pending_sweep_finds_an_increment_whose_request_died(client, connector):
    """The transaction stays `authorization_succeeded` while its increment waits: the sweep looks for the increment
    itself, and records what the processor made of it once no request can still be sending it."""
    txn = create(client, amount=1000)
    other = create(client, amount=500)
    connector.killed_after = {"increment"}
    _killed_increment(txn["id"])
    connector.killed_after = set()

    early = transactions_recover_pending(now=timezone.now())
    recovery = transactions_recover_pending(now=timezone.now() + timedelta(hours=1))

    assert early.resolved == []
    assert [found.pk for found in recovery.resolved] == [Transaction.objects.get(pk=txn["id"]).pk]
    stored = Transaction.objects.get(pk=txn["id"])
    assert (stored.authorized_amount, stored.increment_pending_since) == (1250, None)
    assert Transaction.objects.get(pk=other["id"]).authorized_amount == 500


def test_each_answer_to_an_increment_is_told_to_webhook_receivers(client, connector, merchant_account, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    subscription_for(merchant_account, "http://127.0.0.1:9/hook")  # nothing is sent: no worker runs here
    approved = create(client, amount=1000)
    refused = create(client, amount=1000)

    _increment(client, approved["id"], 250)
    connector.script["increment"] = Outcome.DECLINED
    _increment(client, refused["id"], 250)

    def told(transaction_id: str) -> list[str]:
        after_authorized = OutboxEvent.objects.filter(target_id=transaction_id).exclude(name="transaction.authorized")
        return list(after_authorized.values_list("name", flat=True))

    assert told(approved["id"]) == ["transaction.authorization-incremented"]
    assert told(refused["id"]) == ["transaction.authorization-increment-declined"]
