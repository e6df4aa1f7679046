"""A capture or a void Stripe did not answer in time, and could not be asked about: the client is answered with the
transaction as it stands (`capture_pending` or `authorization_void_pending`, 200), a replay with the same
Idempotency-Key answers the same, and sync or the pending sweep later records what Stripe holds: done, or (the
request never reached Stripe) authorized again. One scenario per test, run for each action."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from paymentservices.processors.stripe.tests.lost import answers_lost
from paymentservices.processors.stripe.tests.test_connector import KEY
from paymentservices.processors.tests.fronts import tcp_front
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction, TransactionEvent
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM

pytestmark = pytest.mark.django_db

CARD = {"method": "card", "number": "4242424242424242", "expiration_date": "12/34", "security_code": "123"}


@dataclass(frozen=True)
class Action:
    """One action of a transaction, as these scenarios ask it and as Stripe's library carries it."""

    path: str  # after /transactions/{id}/
    body: dict[str, Any] | None
    stripe_call: str  # the PaymentIntentService method that carries it
    pending: str  # the transaction's status while Stripe's word is awaited
    done: str  # the transaction's status once Stripe did it
    resource: str  # the Prefer header's resource for the action's own wrapper
    events: tuple[str, str]  # the history's last two events while awaited
    book: Callable[[Any, str, Transaction], None]  # what else the books say once Stripe did it

    def __str__(self) -> str:
        return self.path


def _captured(api, txn_id: str, txn: Transaction) -> None:
    assert txn.captured_amount == 2000
    [capture] = api.get(f"/transactions/{txn_id}/captures").json()["items"]
    assert capture["status"] == "succeeded"


def _voided(api, txn_id: str, txn: Transaction) -> None:
    assert txn.voided_at is not None


CAPTURE = Action(
    "capture",
    {"amount": 2000},
    "capture",
    "capture_pending",
    "capture_succeeded",
    "transaction-capture",
    ("capture_requested", "capture_unanswered"),
    _captured,
)
VOID = Action(
    "void",
    None,
    "cancel",
    "authorization_void_pending",
    "authorization_voided",
    "transaction-void",
    ("void_requested", "void_unanswered"),
    _voided,
)
ACTIONS = pytest.mark.parametrize("action", [CAPTURE, VOID], ids=str)


@pytest.fixture
def api(api_client, merchant_account, stripe_api):
    PaymentServiceFactory(merchant_account=merchant_account, fields=[{"key": "secret_key", "value": KEY}], position=1)
    return api_client(scopes=["transactions.read", "transactions.write"])


def _authorized(api) -> str:
    created = api.post("/transactions", {"amount": 2500, "currency": "USD", "payment_method": CARD}, format="json")
    assert (created.status_code, created.json()["status"]) == (201, "authorization_succeeded"), created.content
    return created.json()["id"]


# Where the library sends each action, and where `lookup` asks what Stripe holds.
LISTED = (("GET", "/v1/payment_intents"),)


def _sent(action: Action) -> tuple[str, str]:
    return ("POST", f"/v1/payment_intents/*/{action.stripe_call}")


def _ask(api, action: Action, txn_id: str, **headers):
    return api.post(
        f"/transactions/{txn_id}/{action.path}",
        action.body,
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"{action.path}-1",
        **headers,
    )


@ACTIONS
def test_an_action_whose_answer_was_lost_answers_pending_and_sync_settles_it(api, monkeypatch, action):
    """Stripe did it; the answer was lost, and the list that would have told it timed out too."""
    txn_id = _authorized(api)
    answers_lost(monkeypatch, _sent(action), *LISTED)

    first = _ask(api, action, txn_id)
    replay = _ask(api, action, txn_id)

    assert (first.status_code, first.json()["status"]) == (200, action.pending)
    assert (first.json()["captured_amount"], first.json()["voided_at"]) == (0, None)
    assert (replay.status_code, replay.headers["Idempotent-Replayed"]) == (200, "true")
    assert replay.json() == first.json()
    if action is CAPTURE:
        [capture] = api.get(f"/transactions/{txn_id}/captures").json()["items"]
        assert (capture["amount"], capture["status"]) == (2000, "pending")
    # The history says the action was asked and Stripe's word on it is awaited.
    names = TransactionEvent.objects.filter(transaction_id=txn_id).values_list("name", flat=True)
    assert tuple(names)[-2:] == action.events

    monkeypatch.undo()  # Stripe answers again
    synced = transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)

    assert synced.status == action.done
    action.book(api, txn_id, synced)


@ACTIONS
def test_an_action_that_never_reached_stripe_is_undone_by_the_pending_sweep(api, monkeypatch, action):
    """Stripe neither answered nor took the action: once no request can still be sending it, it did not happen."""
    txn_id = _authorized(api)
    answers_lost(monkeypatch, _sent(action), *LISTED, acted=False)
    prefer = {"HTTP_PREFER": f"resource={action.resource}"}

    first = _ask(api, action, txn_id, **prefer)

    assert first.status_code == 200
    assert (first.json()["status"], first.json()["transaction"]["status"]) == ("pending", action.pending)
    assert _ask(api, action, txn_id, **prefer).json() == first.json()

    monkeypatch.undo()
    waiting = transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)  # a request may still be sending
    assert waiting.status == action.pending
    recovery = transactions_recover_pending(now=timezone.now() + timedelta(hours=1))

    assert [txn.pk for txn in recovery.resolved] == [Transaction.objects.get(pk=txn_id).pk]
    txn = Transaction.objects.get(pk=txn_id)
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    if action is CAPTURE:
        [capture] = api.get(f"/transactions/{txn_id}/captures").json()["items"]
        assert capture["status"] == "failed"
    asked_again = api.post(
        f"/transactions/{txn_id}/{action.path}", {"amount": 2500} if action.body else None, format="json"
    )
    assert asked_again.json()["status"] == action.done


@ACTIONS
def test_a_stripe_service_that_answers_nothing_at_all_is_not_a_500(api, settings, action):
    """A processor double that takes the connection and never answers (within STRIPE_TIMEOUT_SECONDS)."""
    txn_id = _authorized(api)
    with tcp_front(None) as silent:
        override_processor(settings, "stripe", API_BASE=silent.url, TIMEOUT_SECONDS=1)
        answer = _ask(api, action, txn_id)

    assert (answer.status_code, answer.json()["status"]) == (200, action.pending)
