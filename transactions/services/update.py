"""The fields a client may change on a transaction after it was made."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from payments.partial import UNCHANGED, Unchanged, changed_fields
from paymentservices.routing import options_keys
from transactions.models import (
    Transaction,
)
from transactions.services.state import (
    Actor,
    check_connection_options,
    locked_for_update,
    record_event,
)


@transaction.atomic
def transaction_update(
    *,
    txn: Transaction,
    actor: Actor,
    external_identifier: str | Unchanged | None = UNCHANGED,
    metadata: dict[str, str] | Unchanged | None = UNCHANGED,
    connection_options: dict[str, dict[str, Any]] | Unchanged | None = UNCHANGED,
) -> Transaction:
    """Set the given `external_identifier`, `metadata` and/or `connection_options` (each replaced whole)."""
    if connection_options is not UNCHANGED:
        readable = options_keys(txn.payment_service) if txn.payment_service is not None else frozenset()
        check_connection_options(connection_options, readable)
    changes = changed_fields(
        external_identifier=external_identifier, metadata=metadata, connection_options=connection_options
    )
    txn = locked_for_update(txn)
    for name, value in changes.items():
        setattr(txn, name, value)
    txn.save(update_fields=[*changes, "updated_at"])
    record_event(txn, name="transaction_updated", actor=actor, from_status=txn.status, fields=sorted(changes))
    return txn
