"""A transaction's disputes over the API: an extension (upstream has no dispute resource; docs/api-contracts.md)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from rest_framework import serializers

from disputes.models import STATE_CHOICES, DisputeAnswer
from payments.choices import EvidenceKind
from payments.rest.fields import RequestSerializer, StrictCharField, StrictSerializer, TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer
from paymentservices.processors.seam import Evidence, EvidenceFile


class EvidenceFileInput(StrictSerializer):
    """A document of a defence: its name, media type and bytes (standard base64)."""

    name = StrictCharField(max_length=255)
    content_type = StrictCharField(max_length=100, help_text="`application/pdf`, `image/jpeg`, `image/png`...")
    content = StrictCharField(help_text="The document's bytes, base64 encoded.", trim_whitespace=False)
    kind = serializers.ChoiceField(
        choices=EvidenceKind.choices,
        required=False,
        default=EvidenceKind.OTHER,
        help_text="What the document shows; a processor with evidence types of its own is told it in its type.",
    )

    def validate_content(self, value: str) -> bytes:
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise serializers.ValidationError("Must be the document's bytes in standard base64.") from None


class DisputeDefendInput(RequestSerializer[Evidence]):
    """Body of `POST /transactions/{id}/disputes/{dispute_id}/defend`: the words and documents sent to the processor.
    What each processor takes (types, sizes, how many) is checked before anything is sent."""

    text = StrictCharField(required=False, default="", allow_blank=True, trim_whitespace=False)
    files = EvidenceFileInput(many=True, required=False, default=list)
    reason = StrictCharField(
        required=False,
        allow_null=True,
        max_length=100,
        help_text="The processor's code of the defence, for a processor that asks for one (one of its own codes).",
    )

    def to_request(self, data: dict[str, Any]) -> Evidence:
        files = tuple(EvidenceFile(f["name"], f["content_type"], f["content"], f["kind"]) for f in data["files"])
        return Evidence(text=data["text"], files=files, reason=data.get("reason") or None)


class EvidenceFileOutput(OutputSerializer):
    """A document sent with the defence, as sent (its bytes are kept, not served here)."""

    name = serializers.CharField()
    content_type = serializers.CharField()
    kind = serializers.ChoiceField(choices=EvidenceKind.choices, help_text="What the document shows.")
    size = serializers.IntegerField(help_text="Its size in bytes.")
    sha256 = serializers.CharField(help_text="The SHA-256 of its bytes, hexadecimal.")


class DisputeAnswerOutput(OutputSerializer):
    """An answer the processor took: accepted, or defended with the words and documents sent, and what the processor
    said (`outcome`: `accepted`, or `under_review` while the bank decides). The dispute's own `state` moves with the
    processor's next notification."""

    type = ConstantField("dispute-answer")
    id = serializers.UUIDField()
    dispute_id = serializers.UUIDField()
    action = serializers.ChoiceField(choices=DisputeAnswer.Action.choices)
    outcome = serializers.ChoiceField(choices=DisputeAnswer.Outcome.choices)
    text = serializers.CharField()
    reason = serializers.CharField(allow_null=True, help_text="The processor's code of the defence, when it takes one.")
    files = EvidenceFileOutput(many=True)
    created_at = TimestampField()


class DisputeOutput(OutputSerializer):
    """One dispute of the transaction, as its processor's latest fact says (docs/disputes.md)."""

    type = ConstantField("dispute")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    transaction_id = serializers.UUIDField()
    payment_service_id = serializers.UUIDField()
    payment_service_dispute_id = serializers.CharField(source="processor_dispute_id")
    state = serializers.ChoiceField(choices=STATE_CHOICES)
    reason = serializers.CharField(allow_null=True, help_text="The processor's reason code.")
    amount = serializers.IntegerField(help_text="The disputed amount, in minor units.")
    currency = serializers.CharField()
    due_at = TimestampField(allow_null=True, help_text="When the answer is due at the processor.")
    closed_at = TimestampField(allow_null=True)
    answer = DisputeAnswerOutput(allow_null=True, help_text="The answer the processor took, if any.")
    created_at = TimestampField()
    updated_at = TimestampField()


class DisputesOutput(OutputSerializer):
    """Every dispute of the transaction, newest first, and what those decided for the buyer took back of it."""

    items = DisputeOutput(many=True)
    taken_back_amount = serializers.IntegerField(
        help_text="What lost or accepted disputes took back of the payment, in minor units of its currency."
    )
