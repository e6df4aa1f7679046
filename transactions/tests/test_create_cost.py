"""What one `POST /transactions` costs the database, statement by statement, transaction control included.

The test runs with real transactions (`transaction=True`), so every BEGIN, COMMIT and savepoint the request
makes is counted, as on a server. A card authorization with a new Idempotency-Key: the key's claim (with the
id it reserves; the card's BIN is one the process looked up lately, docs/card-details.md), the routing decision
(the account's payment services, in order: read from the database with the embedded cache, held by the process with
Redis, paymentservices/selectors.py), the sealed card, the `processing` row, its event and its audit log
entry in one transaction, the processor's decision, the outcome (whose `UPDATE` takes the row's lock) and its
event in a second, and the stored answer (the answer reads no disputes: a transaction this request made has none
yet). docs/performance.md keeps the list.
"""

import pytest
from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext

from payments.audit.models import AuditLogEntry
from payments.outbox.models import OutboxEvent
from payments.rest.models import IdempotencyRecord
from payments.vault.models import VaultedCard
from transactions.models import Transaction, TransactionEvent
from transactions.tests.conftest import CARD
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db(transaction=True)

# A process that hears changes announced (Redis as the shared cache) holds the account's routable services: a warm
# create reads them from no table.
ROUTING_READ = 0 if "RedisCache" in settings.CACHES["default"]["BACKEND"] else 1
# Without a webhook subscription; one subscribed to the account adds the outbox row and its dispatch task.
STATEMENTS = 13 + ROUTING_READ
STATEMENTS_SUBSCRIBED = STATEMENTS + 2
TRANSACTION_CONTROL = {"BEGIN", "COMMIT", "ROLLBACK"}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.write"])


def _create(client, key: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            "/transactions",
            {"amount": 1299, "currency": "USD", "payment_method": CARD},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key,
        )
    assert response.status_code == 201, response.content
    return [query["sql"] for query in queries.captured_queries]


def _control(statements: list[str]) -> list[str]:
    return [sql for sql in statements if sql.split()[0].upper() in TRANSACTION_CONTROL or "SAVEPOINT" in sql]


def test_a_card_create_costs_a_fixed_number_of_statements(client):
    _create(client, "warm-up")  # the first request of a process also fills its key and account caches

    statements = _create(client, "order-1")

    assert len(statements) == STATEMENTS, "\n".join(statements)
    assert len(_control(statements)) == 4  # two transactions, no savepoint
    # The same guarantees: the key recorded with its answer, the card sealed, both events and the outcome.
    record = IdempotencyRecord.objects.get(key="order-1")
    assert AuditLogEntry.objects.filter(resource_id=str(record.reserved_id), action="created").exists()
    txn = Transaction.objects.get(pk=record.reserved_id)
    assert (record.state, record.response_status, txn.status) == ("completed", 201, "authorization_succeeded")
    assert VaultedCard.objects.filter(pk=txn.vaulted_card_id).exists()
    assert list(TransactionEvent.objects.filter(transaction=txn).order_by("id").values_list("name", flat=True)) == [
        "transaction_created",
        "authorization_succeeded",
    ]


def test_with_a_webhook_subscription_the_outbox_adds_two_statements(client, merchant_account, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    subscription_for(merchant_account, "http://127.0.0.1:9/hook")  # nothing is sent: no worker runs here
    _create(client, "warm-up")

    statements = _create(client, "order-1")

    assert len(statements) == STATEMENTS_SUBSCRIBED, "\n".join(statements)
    txn = Transaction.objects.get(pk=IdempotencyRecord.objects.get(key="order-1").reserved_id)
    assert OutboxEvent.objects.filter(target_id=str(txn.pk)).exists()


def test_a_replay_costs_two_statements(client):
    _create(client, "order-1")

    assert len(_create(client, "order-1")) == 2  # the claim the key refuses, then its row with the stored answer


def test_the_answer_compiles_nothing_to_learn_what_the_request_made_has_not(client, monkeypatch):
    """A transaction made a moment ago has no disputes and, without gift cards, no redemptions: its answer knows them
    empty, where an empty queryset would be compiled (and found empty) for each."""
    _create(client, "warm-up")
    found_empty = []
    as_sql = SQLCompiler.as_sql

    def compiled(self, *args, **kwargs):
        try:
            return as_sql(self, *args, **kwargs)
        except EmptyResultSet:
            found_empty.append(self.query.model.__name__)
            raise

    monkeypatch.setattr(SQLCompiler, "as_sql", compiled)
    _create(client, "order-1")

    assert found_empty == []
