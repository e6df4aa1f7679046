"""The official SDK reads what the sandbox settled, unchanged, over HTTP: settlements, refund settlements, and the
transaction's settled fields and `has_settlements` filter."""

from datetime import timedelta

import pytest
from django.utils import timezone

from settlements.sources.sandbox import settlements_sandbox_ingest

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


def test_a_payment_the_sandbox_settled_reads_settled_with_its_fee_and_net(sdk):
    created = sdk.transactions.create(amount=10000, currency="EUR", payment_method=CARD)
    sdk.transactions.capture(transaction_id=created.id)
    refund = sdk.transactions.refunds.create(transaction_id=created.id, amount=2500)
    unsettled = sdk.transactions.create(amount=1299, currency="EUR", payment_method=CARD)

    settlements_sandbox_ingest(today=timezone.now().date() + timedelta(days=1))

    settled = sdk.transactions.get(transaction_id=created.id)
    settlements = sdk.transactions.settlements.list(transaction_id=created.id).items
    one = sdk.transactions.settlements.get(transaction_id=created.id, settlement_id=settlements[0].id)
    refunds = sdk.transactions.refund_settlements.list(transaction_id=created.id).items
    listed = sdk.transactions.list(has_settlements=True)

    assert (settled.settled, settled.settled_amount, settled.settled_currency) == (True, 9680 - 2500, "EUR")
    assert [(s.amount, s.commission, s.currency) for s in settlements] == [(10000, 320, "EUR")]
    assert one.id == settlements[0].id
    assert [(r.refund_id, r.amount) for r in refunds] == [(refund.id, 2500)]
    assert [t.id for t in listed.result.items] == [created.id]
    assert sdk.transactions.get(transaction_id=unsettled.id).settled is False
