"""A transaction's history as upstream shows it: its events and the routing actions."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments.rest.fields import TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer
from transactions.models import (
    TransactionEvent,
)

# --- history: events and actions -------------------------------------------------------------------------

# Upstream's names for what our history records (the subset of its `TransactionEvent.name` enum we produce).
STATUS_CHANGED = "transaction-updated-status"
MODIFIED = "transaction-modified-event"
EVENT_NAMES = [
    STATUS_CHANGED,
    MODIFIED,
    "gift-card-redemption-succeeded",
    "gift-card-refund-succeeded",
    "gift-card-reversal-succeeded",
    "payment-connector-response-transaction-authorization-failed",
    "payment-connector-response-transaction-declined",
    "payment-connector-transaction-webhook-processed",
    "three-d-secure-authentication-request",
    "three-d-secure-result-request",
]
_HISTORY_NAMES = {
    "gift_card_redeemed": "gift-card-redemption-succeeded",
    "gift_card_returned": "gift-card-reversal-succeeded",
    # A payment service that gave no answer, before the payment went on to the next one (failover).
    "authorization_attempt_failed": "payment-connector-response-transaction-authorization-failed",
    # A retryable decline the service passed on to the next one (cascading).
    "authorization_attempt_declined": "payment-connector-response-transaction-declined",
    # A capture, cancel or refund made at the processor itself, told by its notification.
    "processor_notification": "payment-connector-transaction-webhook-processed",
    # This server's 3-D Secure: the issuer's first answer, and how a challenge ended (docs/three-d-secure.md).
    "three_d_secure_authentication": "three-d-secure-authentication-request",
    "three_d_secure_challenge_result": "three-d-secure-result-request",
}
# Event ids are derived from the history row's key: stable, unique, and no second key on the history table.
_EVENT_ID_NAMESPACE = uuid.UUID("5f0b8a0e-3c1d-4f7e-9a51-0d6c2b9e7a43")


def transaction_event_id(event: TransactionEvent) -> uuid.UUID:
    return uuid.uuid5(_EVENT_ID_NAMESPACE, str(event.pk))


def transaction_event_name(event: TransactionEvent) -> str:
    """Upstream's name for a history row: a status change, a gift card movement, or another change."""
    if event.name in _HISTORY_NAMES:
        return _HISTORY_NAMES[event.name]
    if event.name == "refund_succeeded" and "redemption" in event.details:
        return "gift-card-refund-succeeded"
    if event.from_status != event.to_status and not event.name.startswith("refund_"):
        return STATUS_CHANGED
    return MODIFIED


class TransactionEventOutput(OutputSerializer):
    """The upstream `TransactionEvent`: one row of the transaction's history, what we record in `context`."""

    type = ConstantField("transaction-event")
    id = serializers.SerializerMethodField()
    name = serializers.SerializerMethodField()
    created_at = TimestampField()
    # A field named like Serializer.context: DRF's metaclass moves declared fields off the class, so the
    # serializer's own context stays reachable.
    context = serializers.SerializerMethodField()  # type: ignore[assignment]

    def get_id(self, event: TransactionEvent) -> uuid.UUID:
        return transaction_event_id(event)

    @extend_schema_field(serializers.ChoiceField(choices=EVENT_NAMES))
    def get_name(self, event: TransactionEvent) -> str:
        return transaction_event_name(event)

    @extend_schema_field(serializers.DictField())
    def get_context(self, event: TransactionEvent) -> dict[str, Any]:
        """What happened (our own event name), the statuses around it, the amount, who did it (an API key by its
        kid; staff and the system by kind only) and the event's details (refund or redemption ids, fields)."""
        actor: dict[str, str] = {"type": event.actor_type}
        if event.actor_type == TransactionEvent.ActorType.API_KEY:
            actor["id"] = event.actor
        return {
            "event": event.name,
            "status": event.to_status,
            "previous_status": event.from_status,
            "amount": event.amount,
            "actor": actor,
            "details": event.details,
        }


FLOW_ACTIONS = ["select-payment-options", "route-transaction", "decline-early", "skip-3ds"]
FLOWS = ["checkout", "card-transaction", "non-card-transaction", "redirect-transaction"]


class TransactionActionOutput(OutputSerializer):
    """The upstream `TransactionAction`: a routing rule that acted on the transaction."""

    type = ConstantField("action")
    id = serializers.ChoiceField(choices=FLOW_ACTIONS)
    flow = serializers.ChoiceField(choices=FLOWS)
    rule_id = serializers.UUIDField()
    created_at = TimestampField()
    outcome = serializers.DictField()


class TransactionActionsOutput(OutputSerializer):
    """The upstream `TransactionActions`: `{"items": [...]}`, unpaginated."""

    items = TransactionActionOutput(many=True)
