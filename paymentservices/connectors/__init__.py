"""One module per connector a payment service definition maps to; each builds a `PaymentConnector` from a service's
credentials (`connector(credentials)`) and checks them (`verify_credentials(credentials)`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class NotificationRefused(Exception):
    """A notification that is not the processor's: unsigned, forged, stale or unreadable. The message is safe to
    show the sender; `pointer` and `location` name where the signature (or the fault) is, when not in a header."""

    def __init__(self, message: str, *, pointer: str | None = None, location: str = "body") -> None:
        super().__init__(message)
        self.pointer = pointer
        self.location = location


@dataclass(frozen=True)
class ParsedNotification:
    """A processor's notification, once its signature is verified: its id (for duplicates), its type, the processor's
    id of the object it is about and our reference for it (when the object carries one)."""

    event_id: str
    event_type: str
    object_id: str
    reference: str | None
    data: Mapping[str, Any] = field(default_factory=dict)
