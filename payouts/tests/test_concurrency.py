"""Real concurrency against PostgreSQL: a payout asked by several recoveries at once, and one Idempotency-Key sent by
several requests at once, is paid once and recorded once."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from payments.connectors import OutcomeUnknown
from payments.connectors.models import SandboxOperation
from payments.tests.races import at_once
from paymentservices.processors import sandbox
from payouts.models import Payout, PayoutStatus
from payouts.services import payouts_recover_pending
from payouts.tests.factories import PayoutFactory
from payouts.tests.test_api import CARD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SANDBOX_PAYOUTS = type(sandbox.PROCESSOR.payouts)


def test_recoveries_at_once_pay_a_lost_payout_once(merchant_account, monkeypatch):
    decide = SANDBOX_PAYOUTS.pay_out

    def decided_then_lost(self, **kwargs):
        decide(self, **kwargs)
        raise OutcomeUnknown("the answer was lost")

    monkeypatch.setattr(SANDBOX_PAYOUTS, "pay_out", decided_then_lost)
    payout = PayoutFactory(merchant_account=merchant_account)
    monkeypatch.undo()
    later = timezone.now() + timedelta(hours=1)

    at_once([lambda: payouts_recover_pending(now=later)] * 3)

    payout.refresh_from_db()
    assert payout.status == PayoutStatus.SUCCEEDED
    assert SandboxOperation.objects.filter(operation="payout").count() == 1


def test_one_idempotency_key_sent_at_once_makes_one_payout(token_for, merchant_account, sandbox_service):
    token = token_for(["payouts.write"])
    body = {"amount": 800, "currency": "USD", "payment_service_id": str(sandbox_service.pk), "payment_method": CARD}

    def send():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return client.post("/payouts", body, format="json", HTTP_IDEMPOTENCY_KEY="race-1").status_code

    statuses = at_once([send] * 4)

    assert set(statuses) <= {201, 409}
    assert 201 in statuses
    assert Payout.objects.count() == 1
    assert SandboxOperation.objects.filter(operation="payout").count() == 1
