"""Re-key the stored request fingerprints of `Idempotency-Key` answers.

Rows written before this release hold a bare SHA-256 of the request, which for a card payment covers the card
number, security code and gift card PINs; next to the stored answer (BIN, last 4, expiry, amount) that digest
is brute-forced in seconds. The new fingerprint is an HMAC of that same digest, so each row is re-keyed in
place instead of being dropped: a client retrying a request made just before the upgrade still gets its stored
answer, not a second payment. Rows past their retention are deleted instead.

Needs CARD_FINGERPRINT_KEY (the system checks that `migrate` runs first refuse a malformed one). Not reversible:
the bare digest is gone by design. Going back to older code leaves keyed rows it cannot match, so a retry of one
of them is refused as a different request (a 400, never a second run) until the row expires.
"""

import re

from django.db import migrations
from django.utils import timezone

# The label `payments.rest.idempotency.FINGERPRINT_PURPOSE` has: both must derive the same key.
PURPOSE = "payments.idempotency.request"
_BARE_DIGEST = re.compile(r"[0-9a-f]{64}")
_BATCH = 500


def rekey_fingerprints(apps, schema_editor):
    from payments.vault.crypto import keyed_hash

    record_model = apps.get_model("payments", "IdempotencyRecord")
    record_model.objects.filter(expires_at__lte=timezone.now()).delete()
    rows = record_model.objects.order_by("pk").only("pk", "fingerprint")
    last_pk = 0
    # Keyset batches: a day of payments may be many rows, and SQLite must not write under an open cursor.
    while batch := list(rows.filter(pk__gt=last_pk)[:_BATCH]):
        last_pk = batch[-1].pk
        stale = [record for record in batch if _BARE_DIGEST.fullmatch(record.fingerprint)]
        for record in stale:
            record.fingerprint = keyed_hash(record.fingerprint, purpose=PURPOSE)
        record_model.objects.bulk_update(stale, ["fingerprint"])


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0012_audit_log_locked_out"),
    ]

    operations = [
        migrations.RunPython(rekey_fingerprints, migrations.RunPython.noop, elidable=True),
    ]
