"""Each change of a payout is told to the merchant's webhook receivers once, through the outbox (docs/webhooks.md)."""

from __future__ import annotations

import pytest

from payments.outbox.models import OutboxEvent
from payouts.api.targets import payout_target
from payouts.models import Payout
from payouts.requests import PayoutCard, PayoutCreateRequest
from payouts.services import payout_create, payout_notified, payouts_recover_pending
from payouts.tests.test_api import CARD
from payouts.tests.test_recovery import _later, _lose_answers
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    subscription_for(merchant_account, "http://127.0.0.1:9/hook")  # nothing is sent: no worker runs here
    return api_client(scopes=["payouts.read", "payouts.write"])


def told(payout_id: str) -> list[str]:
    events = OutboxEvent.objects.filter(target_type="payout", target_id=payout_id).order_by("created_at")
    return list(events.values_list("name", flat=True))


def _body(service, number="4111111111111111"):
    card = {**CARD, "number": number}
    return {"amount": 700, "currency": "USD", "payment_service_id": str(service.pk), "payment_method": card}


@pytest.mark.parametrize(
    ("number", "outcome"),
    [
        ("4111111111111111", "payout.succeeded"),
        ("4000000000000002", "payout.declined"),
        ("4000000000000119", "payout.failed"),  # the processor could not be reached
    ],
)
def test_a_payout_is_told_when_made_and_when_decided(client, sandbox_service, number, outcome):
    response = client.post("/payouts", _body(sandbox_service, number), format="json")

    assert response.status_code == 201, response.content
    assert told(response.json()["id"]) == ["payout.pending", outcome]


def test_a_replayed_create_tells_nothing_more(client, sandbox_service):
    first = client.post("/payouts", _body(sandbox_service), format="json", HTTP_IDEMPOTENCY_KEY="win-7")
    again = client.post("/payouts", _body(sandbox_service), format="json", HTTP_IDEMPOTENCY_KEY="win-7")

    assert again.headers["Idempotent-Replayed"] == "true"
    assert told(first.json()["id"]) == ["payout.pending", "payout.succeeded"]
    assert OutboxEvent.objects.count() == 2


def test_a_lost_answer_is_told_once_when_recovery_settles_it(client, sandbox_service, monkeypatch):
    _lose_answers(monkeypatch)
    pending = client.post("/payouts", _body(sandbox_service), format="json").json()
    monkeypatch.undo()
    assert told(pending["id"]) == ["payout.pending"]

    payouts_recover_pending(now=_later())
    payouts_recover_pending(now=_later())  # nothing left pending: nothing more to tell

    assert told(pending["id"]) == ["payout.pending", "payout.succeeded"]


def test_a_resumed_create_tells_its_outcome_and_not_its_creation_again(
    client, sandbox_service, merchant_account, monkeypatch
):
    _lose_answers(monkeypatch)
    request = PayoutCreateRequest(
        amount=900,
        currency="USD",
        payment_service_id=sandbox_service.pk,
        payment_method=PayoutCard(number="4111111111111111", expiration_month=12, expiration_year=2039),
    )
    first = payout_create(merchant_account=merchant_account, request=request)
    monkeypatch.undo()

    payout_create(merchant_account=merchant_account, request=request, id=first.pk, resumed=True)
    payout_create(merchant_account=merchant_account, request=request, id=first.pk, resumed=True)  # decided already

    assert told(str(first.pk)) == ["payout.pending", "payout.succeeded"]


def test_a_processors_notification_is_told_once(client, sandbox_service, monkeypatch):
    from paymentservices.notifications import ProcessorEvent
    from paymentservices.processors.seam import NotifiedPayout

    _lose_answers(monkeypatch)
    pending = client.post("/payouts", _body(sandbox_service), format="json").json()
    notified = NotifiedPayout(reference=pending["id"], paid=False, processor_reference="po_1", reason="closed")
    event = ProcessorEvent(
        payment_service=sandbox_service,
        event_id="evt_1",
        event_type="PAYOUT_DECLINE",
        object_id="po_1",
        reference=pending["id"],
        payout=notified,
    )

    payout_notified(event)
    payout_notified(event)  # the processor sends it again: the payout is decided, nothing more is told

    assert told(pending["id"]) == ["payout.pending", "payout.declined"]


def test_the_target_is_the_payout_as_the_api_shows_it(client, sandbox_service):
    # Declined: a payout that moved money is kept by its ledger line and cannot be deleted.
    made = client.post("/payouts", _body(sandbox_service, "4000000000000002"), format="json").json()

    assert payout_target(made["id"]) == client.get(f"/payouts/{made['id']}").json()
    assert Payout.objects.filter(pk=made["id"]).delete()
    assert payout_target(made["id"]) == {"type": "payout", "id": made["id"]}
