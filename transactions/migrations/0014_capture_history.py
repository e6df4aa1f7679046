"""Every capture is a record: a transaction captured before captures were records gets one, as its history tells it
(the amount it captured, when); one whose capture was under way gets the pending capture recovery will ask about."""

from django.db import migrations

BATCH = 1000


def _pending_amount(events, txn):
    """What the capture under way was asked for, from the event that started it."""
    started = events.filter(transaction_id=txn.pk, name="capture_requested").order_by("-created_at", "-id").first()
    return started.amount if started is not None and started.amount else txn.authorized_amount


def _first_capture(Capture, txn, **fields):
    return Capture(
        merchant_account_id=txn.merchant_account_id,
        transaction_id=txn.pk,
        sequence=1,
        currency=txn.currency,
        final=True,
        **fields,
    )


def backfill_captures(apps, schema_editor):
    Transaction = apps.get_model("transactions", "Transaction")
    Capture = apps.get_model("transactions", "Capture")
    TransactionEvent = apps.get_model("transactions", "TransactionEvent")
    captured = Transaction.objects.filter(captured_amount__gt=0, captures__isnull=True)
    rows = [
        _first_capture(
            Capture,
            txn,
            amount=txn.captured_amount,
            status="succeeded",
            captured_at=txn.captured_at,
            created_at=txn.captured_at or txn.updated_at,
        )
        for txn in captured.iterator(chunk_size=BATCH)
    ]
    pending = Transaction.objects.filter(status="capture_pending", authorized_amount__gt=0, captures__isnull=True)
    rows += [
        _first_capture(
            Capture,
            txn,
            amount=_pending_amount(TransactionEvent.objects, txn),
            status="pending",
            created_at=txn.updated_at,
        )
        for txn in pending.iterator(chunk_size=BATCH)
    ]
    # `created_at` is set on create whatever it holds: the capture's own time is put back afterwards.
    times = [row.created_at for row in rows]
    Capture.objects.bulk_create(rows, batch_size=BATCH)
    for row, time in zip(rows, times, strict=True):
        row.created_at = time
    Capture.objects.bulk_update(rows, ["created_at"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("transactions", "0013_captures"),
    ]

    operations = [
        migrations.RunPython(backfill_captures, migrations.RunPython.noop),
    ]
