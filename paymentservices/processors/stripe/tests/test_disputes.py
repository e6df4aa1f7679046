"""Stripe's `charge.dispute.*` events, signed with the service's webhook secret and posted to its `webhook_url`: the
dispute of the PaymentIntent the service holds opens, moves and closes; the transaction says `disputed`; resent or
out-of-order events change nothing more; an event about a payment that is not the service's is answered and changes
nothing; a dispute Stripe would not send is refused by name. Built from the Dispute object of Stripe's API reference
(`id`, `amount`, `currency`, `payment_intent`, `reason`, `status`, `evidence_details.due_by`)."""

from __future__ import annotations

import json
import time

import pytest

from disputes.models import Dispute
from payments.tests.assertions import assert_error
from paymentservices.models import InboundNotification
from paymentservices.processors.stripe.tests.test_notifications import WEBHOOK_SECRET, _post, _signature
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction, TransactionEvent
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

INTENT = "pi_3Disputed0001"
# When the dispute opened, by Stripe's clock: a few days ago, within the window of dates the server takes
# (docs/disputes.md) whenever the suite runs.
CREATED = int(time.time()) - 4 * 86400


def _stripe(merchant_account):
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        fields=[
            {"key": "secret_key", "value": "sk_test_disputes_0123"},
            {"key": "webhook_secret", "value": WEBHOOK_SECRET},
        ],
    )


@pytest.fixture
def service(merchant_account):
    return _stripe(merchant_account)


@pytest.fixture
def txn(service) -> Transaction:
    return TransactionFactory(
        merchant_account=service.merchant_account,
        payment_service=service,
        captured=True,
        payment_service_transaction_id=INTENT,
    )


def _dispute_event(kind: str, status: str, *, after: int = 0, intent: str = INTENT, **dispute) -> bytes:
    obj = {
        "id": "dp_1Disputed",
        "object": "dispute",
        "amount": 1299,
        "currency": "usd",
        "charge": "ch_3Disputed0001",
        "payment_intent": intent,
        "reason": "fraudulent",
        "status": status,
        "evidence_details": {"due_by": CREATED + 7 * 86400, "has_evidence": False, "submission_count": 0},
        "created": CREATED,
        **dispute,
    }
    body = {
        "id": f"evt_dispute_{kind}_{status}_{after}",
        "object": "event",
        "type": f"charge.dispute.{kind}",
        "created": CREATED + after,
        "data": {"object": obj},
    }
    return json.dumps(body).encode()


def _send(client, service, payload: bytes):
    return _post(client, service, payload, _signature(payload))


def _read(txn: Transaction) -> tuple[str, bool]:
    from transactions.disputes import transaction_disputed

    txn = Transaction.objects.get(pk=txn.pk)
    return Dispute.objects.get(transaction=txn).state, transaction_disputed(txn)


def test_a_dispute_opens_is_answered_and_is_won(client, service, txn):
    assert _send(client, service, _dispute_event("created", "needs_response")).status_code == 200
    assert _send(client, service, _dispute_event("funds_withdrawn", "needs_response", after=1)).status_code == 200
    assert _read(txn) == ("needs_response", True)
    dispute = Dispute.objects.get()
    assert (dispute.amount, dispute.currency, dispute.reason, int(dispute.due_at.timestamp())) == (
        1299,
        "USD",
        "fraudulent",
        CREATED + 7 * 86400,
    )

    _send(client, service, _dispute_event("updated", "under_review", after=60))
    assert _read(txn) == ("under_review", True)
    _send(client, service, _dispute_event("funds_reinstated", "won", after=120))
    _send(client, service, _dispute_event("closed", "won", after=120))

    assert _read(txn) == ("won", False)
    names = TransactionEvent.objects.filter(transaction=txn).order_by("id").values_list("name", flat=True)
    assert list(names) == ["dispute_needs_response", "dispute_under_review", "dispute_won"]


def test_a_closed_before_its_created_ends_lost(client, service, txn):
    _send(client, service, _dispute_event("closed", "lost", after=300))
    _send(client, service, _dispute_event("created", "needs_response"))
    _send(client, service, _dispute_event("closed", "lost", after=300))  # resent: a duplicate

    assert _read(txn) == ("lost", True)
    assert InboundNotification.objects.count() == 2


def test_an_inquiry_that_closes_is_won(client, service, txn):
    _send(client, service, _dispute_event("created", "warning_needs_response"))
    assert _read(txn) == ("inquiry", True)

    _send(client, service, _dispute_event("closed", "warning_closed", after=10))

    assert _read(txn) == ("won", False)


def test_a_dispute_of_a_payment_that_is_not_the_services_is_answered_and_changes_nothing(
    client, service, txn, merchant_account
):
    from payments.tests.factories import MerchantAccountFactory

    other = _stripe(MerchantAccountFactory(id="other"))
    TransactionFactory(
        merchant_account=other.merchant_account,
        payment_service=other,
        payment_service_transaction_id="pi_theirs",
        captured=True,
    )

    assert _send(client, service, _dispute_event("created", "needs_response", intent="pi_unknown")).status_code == 200
    assert _send(client, service, _dispute_event("created", "lost", intent="pi_theirs", after=5)).status_code == 200

    assert Dispute.objects.count() == 0
    assert InboundNotification.objects.count() == 2  # kept for the operator


@pytest.mark.parametrize(
    ("dispute", "pointer"),
    [
        ({"status": "pending"}, "/data/object/status"),
        ({"amount": -5}, "/data/object/amount"),
        ({"amount": None}, "/data/object/amount"),
        ({"currency": None}, "/data/object/currency"),
        ({"payment_intent": None}, "/data/object/payment_intent"),
        ({"id": ""}, "/data/object/id"),
    ],
    ids=["status", "negative-amount", "no-amount", "no-currency", "no-payment-intent", "no-id"],
)
def test_a_dispute_stripe_would_not_send_is_refused_by_name(client, service, txn, dispute, pointer):
    status = dispute.pop("status", "needs_response")

    response = _send(client, service, _dispute_event("created", status, **dispute))

    assert_error(response, 400, pointer)
    assert (Dispute.objects.count(), InboundNotification.objects.count()) == (0, 0)


def test_the_signature_is_checked_first(client, service, txn):
    payload = _dispute_event("closed", "lost")

    response = _post(client, service, payload, _signature(payload, "whsec_someone_else", at=int(time.time())))

    assert_error(response, 400, "/stripe-signature", location="header")
    assert Dispute.objects.count() == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_dispute_told_by_many_notifications_at_once_ends_once_at_the_last_fact(merchant_account):
    """Stripe sends the created, updated, funds and closed events of one dispute close together: eight threads post
    them at once (each its own connection). The transaction's row lock serializes them: one dispute, at the state the
    latest fact says, with one event per state it passed through in the order applied, whatever the arrival order."""
    from django.test import Client

    from payments.tests.races import at_once

    service = _stripe(merchant_account)
    txn = TransactionFactory(
        merchant_account=merchant_account, payment_service=service, captured=True, payment_service_transaction_id=INTENT
    )
    events = [
        ("created", "needs_response", 0),
        ("funds_withdrawn", "needs_response", 1),
        ("updated", "under_review", 60),
        ("updated", "under_review", 61),
        ("closed", "lost", 120),
        ("created", "needs_response", 0),  # resent
        ("closed", "lost", 120),  # resent
        ("updated", "needs_response", 30),
    ]

    def post(kind: str, status: str, after: int):
        payload = _dispute_event(kind, status, after=after)
        return lambda: _send(Client(), service, payload).status_code

    answers = at_once([post(*event) for event in events])

    assert sorted(answers) == [200] * len(events)
    assert _read(txn) == ("lost", True)
    names = list(TransactionEvent.objects.filter(transaction=txn).values_list("name", flat=True))
    assert names.count("dispute_lost") == 1
    assert names[0] in ("dispute_needs_response", "dispute_under_review", "dispute_lost")
    assert InboundNotification.objects.count() == 6  # the two resent ones recorded once


def test_a_refund_while_a_chargeback_is_open_is_refused_naming_it(client, service, api_client):
    """Captured 1000, a chargeback of 1000 opened: a refund now, then the dispute lost, would give the buyer 2000 back
    from a 1000 payment."""
    txn = TransactionFactory(
        merchant_account=service.merchant_account,
        payment_service=service,
        captured=True,
        amount=1000,
        payment_service_transaction_id=INTENT,
    )
    writer = api_client(scopes=["transactions.write"])
    assert _send(client, service, _dispute_event("created", "needs_response", amount=1000)).status_code == 200

    for path, body in ((f"/transactions/{txn.pk}/refunds", {}), (f"/transactions/{txn.pk}/refunds/all", None)):
        refused = writer.post(path, body, format="json")
        envelope = assert_error(refused, 409)
        assert "Dispute dp_1Disputed is open and holds 1000 of this payment" in envelope["message"]

    _send(client, service, _dispute_event("closed", "lost", after=60, amount=1000))
    assert_error(writer.post(f"/transactions/{txn.pk}/refunds", {}, format="json"), 409)
    txn.refresh_from_db()
    assert (txn.refunded_amount, txn.refunds.count()) == (0, 0)


@pytest.mark.parametrize("created", [253_402_300_799, 946_684_800], ids=["9999-12-31", "2000-01-01"])
def test_a_dispute_event_dated_outside_the_window_is_refused_and_freezes_nothing(client, service, txn, created):
    _send(client, service, _dispute_event("created", "needs_response"))
    payload = json.loads(_dispute_event("closed", "won", after=60))
    payload["created"] = created
    payload = json.dumps(payload).encode()

    assert_error(_send(client, service, payload), 400, "/created")

    _send(client, service, _dispute_event("closed", "lost", after=120))
    assert _read(txn) == ("lost", True)
