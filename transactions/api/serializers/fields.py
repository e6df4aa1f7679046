"""Building blocks the transaction inputs and outputs share."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments.rest.fields import StrictCharField
from payments.rest.outputs import NULL_STRING as NULL_STRING

MAX_METADATA_KEYS = 20
MAX_METADATA_KEY_LENGTH = 40
MAX_METADATA_VALUE_LENGTH = 500


class MetadataField(serializers.DictField):
    """Flat string key/value pairs, at most 20, keys up to 40 characters and values up to 500."""

    def __init__(self, **kwargs) -> None:
        super().__init__(child=StrictCharField(max_length=MAX_METADATA_VALUE_LENGTH, allow_blank=True), **kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if len(value) > MAX_METADATA_KEYS:
            raise serializers.ValidationError(f"At most {MAX_METADATA_KEYS} keys.")
        for key in value:
            if not 1 <= len(key) <= MAX_METADATA_KEY_LENGTH:
                raise serializers.ValidationError(f"Keys must be 1 to {MAX_METADATA_KEY_LENGTH} characters long.")
        return value


class ConnectionOptionsField(serializers.DictField):
    """`{"<connector key>": {...options} | null}`: option sets for named connections (which ones the connectors of
    the payment's services read is checked by the service)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.DictField(allow_null=True), required=False, allow_null=True, **kwargs)


NULL_OBJECT = {"type": "object", "nullable": True}
