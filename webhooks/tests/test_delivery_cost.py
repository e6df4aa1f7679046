"""What a webhook costs the database, statement by statement, transaction control included (real transactions, as
a worker runs them): an event's dispatch (its lock, its target rendered, the delivery and its attempt's task) and one
attempt (the claim, the read, the record). A worker's task loops share one interpreter, so these statements are most
of what a worker's rate is made of (docs/performance.md); the task engine's own claim and result of each task are its
own and not counted here.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from payments.outbox.models import OutboxEvent
from transactions.tests.factories import TransactionFactory
from webhooks.models import DeliveryState, WebhookAttempt
from webhooks.services.deliveries import webhook_delivery_attempt, webhook_event_dispatch
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db(transaction=True)

DISPATCH = 10
ATTEMPT = 8


def _statements(run) -> list[str]:  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as queries:
        run()
    return [query["sql"] for query in queries.captured_queries]


def test_an_event_and_its_attempt_cost_a_fixed_number_of_statements(merchant_account, receiver):
    subscription_for(merchant_account, receiver.url)
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    warm, event = (
        OutboxEvent.objects.create(
            merchant_account=merchant_account, name="transaction.updated", target_type="transaction", target_id=txn.pk
        )
        for _ in range(2)
    )
    (first,) = webhook_event_dispatch(event_id=warm.pk)  # the first of a process also fills its subscriptions' cache
    webhook_delivery_attempt(delivery_id=first.pk)
    made = []

    dispatch = _statements(lambda: made.extend(webhook_event_dispatch(event_id=event.pk)))
    attempt = _statements(lambda: webhook_delivery_attempt(delivery_id=made[0].pk))

    assert len(dispatch) == DISPATCH, "\n".join(dispatch)
    assert len(attempt) == ATTEMPT, "\n".join(attempt)
    made[0].refresh_from_db()
    assert made[0].state == DeliveryState.DELIVERED
    assert WebhookAttempt.objects.filter(delivery=made[0], succeeded=True).count() == 1
    assert len(receiver.received) == 2
