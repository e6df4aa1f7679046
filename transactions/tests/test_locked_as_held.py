"""`locked_as_held`: a create's outcome locks its row by `updated_at` and keeps the copy it wrote, unless the row
changed meanwhile."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from transactions.models import Transaction
from transactions.services.state import locked_as_held
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db


def test_an_unchanged_row_keeps_the_callers_copy_and_reads_one_column():
    held = TransactionFactory(status="processing")
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked = locked_as_held(held)
    assert locked is held
    (select,) = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert '"updated_at"' in select
    assert '"amount"' not in select


def test_a_row_changed_meanwhile_is_read_again():
    held = TransactionFactory(status="processing")
    elsewhere = Transaction.objects.get(pk=held.pk)
    elsewhere.status = "authorization_voided"
    elsewhere.metadata = {"changed": "elsewhere"}
    elsewhere.save(update_fields=["status", "metadata", "updated_at"])
    with transaction.atomic():
        locked = locked_as_held(held)
    assert locked is not held
    assert (locked.status, locked.metadata) == ("authorization_voided", {"changed": "elsewhere"})
