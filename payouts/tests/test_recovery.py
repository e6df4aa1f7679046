"""A payout's money is never silently wrong: an Idempotency-Key replays the same payout; a processor that decided and
whose answer was lost leaves the payout pending, and recovery settles it from the processor's own answer to the same
reference, with nothing paid twice; a processor still unreachable leaves it pending, never failed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from payments.connectors import OutcomeUnknown
from payments.connectors.models import SandboxOperation
from payments.vault.models import VaultedCard
from paymentservices.processors import sandbox
from payouts.models import Payout, PayoutStatus
from payouts.services import payout_create, payouts_recover_pending
from payouts.tests.test_api import CARD

pytestmark = pytest.mark.django_db

SANDBOX_PAYOUTS = type(sandbox.PROCESSOR.payouts)


@pytest.fixture
def client(api_client):
    return api_client(scopes=["payouts.read", "payouts.write"])


def _later():
    return timezone.now() + timedelta(hours=1)


def _lose_answers(monkeypatch):
    """The sandbox decides (and keeps its decision), then its answer never reaches us."""
    decide = SANDBOX_PAYOUTS.pay_out

    def decided_then_lost(self, **kwargs):
        decide(self, **kwargs)
        raise OutcomeUnknown("the answer was lost")

    monkeypatch.setattr(SANDBOX_PAYOUTS, "pay_out", decided_then_lost)


def _unreachable(monkeypatch):
    def unreachable(self, **kwargs):
        raise OutcomeUnknown("no answer")

    monkeypatch.setattr(SANDBOX_PAYOUTS, "pay_out", unreachable)


def test_the_same_idempotency_key_answers_the_same_payout_once(client, sandbox_service):
    body = {"amount": 500, "currency": "USD", "payment_service_id": str(sandbox_service.pk), "payment_method": CARD}

    first = client.post("/payouts", body, format="json", HTTP_IDEMPOTENCY_KEY="win-42")
    again = client.post("/payouts", body, format="json", HTTP_IDEMPOTENCY_KEY="win-42")
    other = client.post("/payouts", {**body, "amount": 501}, format="json", HTTP_IDEMPOTENCY_KEY="win-42")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert other.status_code == 400  # the same key for another payout
    assert Payout.objects.count() == 1
    assert SandboxOperation.objects.filter(operation="payout").count() == 1


def test_a_lost_answer_is_pending_then_recovered_with_nothing_paid_twice(client, sandbox_service, monkeypatch):
    _lose_answers(monkeypatch)
    body = {"amount": 700, "currency": "USD", "payment_service_id": str(sandbox_service.pk), "payment_method": CARD}

    response = client.post("/payouts", body, format="json")

    assert response.status_code == 201, response.content
    assert (response.json()["status"], response.json()["payment_service_payout_id"]) == ("pending", None)
    payout = Payout.objects.get()
    assert payout.card is not None  # kept sealed: recovery may need to ask again with it
    assert SandboxOperation.objects.filter(operation="payout").count() == 1  # the processor paid it
    monkeypatch.undo()

    assert payouts_recover_pending(now=timezone.now()).asked == 0  # not yet: its request may still be running
    recovery = payouts_recover_pending(now=_later())

    assert (recovery.asked, recovery.settled) == (1, 1)
    payout.refresh_from_db()
    assert (payout.status, payout.attempts) == (PayoutStatus.SUCCEEDED, 2)
    assert payout.payment_service_payout_id == f"sandbox-payout-{payout.pk}"
    paid = SandboxOperation.objects.filter(operation="payout")
    assert [(op.reference, op.amount) for op in paid] == [(str(payout.pk), 700)]  # once, for its amount
    assert payout.card is None
    assert not VaultedCard.objects.exists()
    assert client.get(f"/payouts/{payout.pk}").json()["status"] == "succeeded"
    assert payouts_recover_pending(now=_later()).asked == 0


def test_a_processor_still_unreachable_leaves_the_payout_pending(sandbox_service, merchant_account, monkeypatch):
    from payouts.tests.factories import PayoutFactory

    _unreachable(monkeypatch)
    payout = PayoutFactory(merchant_account=merchant_account, payment_service=sandbox_service)
    assert payout.status == PayoutStatus.PENDING

    # Recovery cannot reach it either, and a FAILED answer now (nothing sent this time) says nothing of the first
    # ask: the payout stays pending.
    monkeypatch.setattr(SANDBOX_PAYOUTS, "pay_out", lambda self, **kwargs: _failed())
    assert payouts_recover_pending(now=_later()).settled == 0
    payout.refresh_from_db()
    assert (payout.status, payout.attempts) == (PayoutStatus.PENDING, 2)

    monkeypatch.undo()
    assert payouts_recover_pending(now=_later()).settled == 1
    payout.refresh_from_db()
    assert payout.status == PayoutStatus.SUCCEEDED
    assert SandboxOperation.objects.filter(operation="payout").count() == 1


def _failed():
    from payments.connectors.base import ConnectorResult, Outcome

    return ConnectorResult(outcome=Outcome.FAILED, error_code="service_error", raw_response_code="96")


def test_a_first_ask_that_reached_no_processor_fails(client, sandbox_service):
    body = {
        "amount": 700,
        "currency": "USD",
        "payment_service_id": str(sandbox_service.pk),
        "payment_method": {**CARD, "number": "4000000000000119"},
    }

    response = client.post("/payouts", body, format="json")

    assert (response.status_code, response.json()["status"]) == (201, "failed")
    assert Payout.objects.get().error_code == "service_error"


def test_a_retry_of_a_request_that_died_settles_its_payout(sandbox_service, merchant_account, monkeypatch):
    """The Idempotency-Key's resumed request names the payout the dead one made: it is asked again, not made twice."""
    from payouts.requests import PayoutCard, PayoutCreateRequest

    _lose_answers(monkeypatch)
    request = PayoutCreateRequest(
        amount=900,
        currency="USD",
        payment_service_id=sandbox_service.pk,
        payment_method=PayoutCard(number="4111111111111111", expiration_month=12, expiration_year=2039),
    )
    first = payout_create(merchant_account=merchant_account, request=request)
    monkeypatch.undo()

    resumed = payout_create(merchant_account=merchant_account, request=request, id=first.pk, resumed=True)

    assert (resumed.pk, resumed.status) == (first.pk, PayoutStatus.SUCCEEDED)
    assert Payout.objects.count() == 1
    assert SandboxOperation.objects.filter(operation="payout").count() == 1


def test_the_recovery_job_is_scheduled(settings):
    assert settings.SCHEDULED_JOBS["recover-pending-payouts"]["call"] == "payouts.services.payouts_recover_pending"


def test_a_pending_payout_whose_card_is_gone_stays_pending_for_an_operator(
    sandbox_service, merchant_account, monkeypatch
):
    from payouts.tests.factories import PayoutFactory

    _lose_answers(monkeypatch)
    gone = PayoutFactory(merchant_account=merchant_account, payment_service=sandbox_service)
    kept = PayoutFactory(merchant_account=merchant_account, payment_service=sandbox_service)
    monkeypatch.undo()
    VaultedCard.objects.filter(pk=gone.card_id).update(expires_at=timezone.now() - timedelta(seconds=1))

    recovery = payouts_recover_pending(now=_later())

    assert (recovery.asked, recovery.settled) == (2, 1)
    assert Payout.objects.get(pk=gone.pk).status == PayoutStatus.PENDING
    assert Payout.objects.get(pk=kept.pk).status == PayoutStatus.SUCCEEDED
