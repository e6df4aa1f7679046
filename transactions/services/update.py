"""The fields a client may change on a transaction after it was made."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from transactions.models import (
    Transaction,
)
from transactions.services.create import _check_connection_options
from transactions.services.state import (
    Actor,
    _event,
    _locked,
)

UPDATABLE_FIELDS = ("external_identifier", "metadata", "connection_options")


@transaction.atomic
def transaction_update(*, txn: Transaction, actor: Actor, **changes: Any) -> Transaction:
    """Set the given `external_identifier`, `metadata` and/or `connection_options` (each replaced whole)."""
    unknown = set(changes) - set(UPDATABLE_FIELDS)
    if unknown:
        raise TypeError(f"Not updatable: {sorted(unknown)}")
    _check_connection_options(changes.get("connection_options"))
    txn = _locked(txn)
    for name, value in changes.items():
        setattr(txn, name, value)
    txn.save(update_fields=[*changes, "updated_at"])
    _event(txn, name="transaction_updated", actor=actor, from_status=txn.status, fields=sorted(changes))
    return txn
