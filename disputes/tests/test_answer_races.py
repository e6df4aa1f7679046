"""Two answers of one dispute at once, as real concurrent requests against PostgreSQL: the dispute's row lock lets
one reach the processor; the other waits, finds it answered and is a 409."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from disputes.models import DisputeAnswer
from disputes.tests.factories import DisputeFactory
from paymentservices.processors import processor_get
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.tests.test_concurrency import in_parallel

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_answers_at_once_one_reaches_the_processor(token_for, merchant_account, monkeypatch):
    service = PaymentServiceFactory(mock_card=True, merchant_account=merchant_account)
    dispute = DisputeFactory(
        transaction__merchant_account=merchant_account,
        transaction__payment_service=service,
        due_at=timezone.now() + timedelta(days=7),
    )
    asked: list[str] = []
    sandbox = type(processor_get("mock-card").disputes)
    answer = sandbox._answer

    def slowly(dispute_id: str, outcome: str):
        asked.append(outcome)
        time.sleep(0.5)  # long enough for the other request to arrive while this one is at the processor
        return answer(dispute_id, outcome)

    monkeypatch.setattr(sandbox, "_answer", staticmethod(slowly))
    url = f"/transactions/{dispute.transaction_id}/disputes/{dispute.pk}/accept"

    answers = in_parallel(2, lambda client: client.post(url), token_for(["disputes.write"]))

    assert sorted(response.status_code for response in answers) == [201, 409]
    assert (len(asked), DisputeAnswer.objects.count()) == (1, 1)
