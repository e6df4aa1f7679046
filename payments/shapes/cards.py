"""Card fields for request bodies, shared by Secure Fields and transactions.

Each field checks its value with `payments.vault.cards` and reports problems in words that never repeat the
input, so neither a response nor a log line built from an error can carry a number or a security code.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments.bins.facts import MAX_BIN_LENGTH, MIN_BIN_LENGTH
from payments.rest.fields import StrictSerializer
from payments.vault import cards


class CardExpiry(NamedTuple):
    month: int
    year: int


def _fail_with(error: cards.CardDataError) -> serializers.ValidationError:
    return serializers.ValidationError(error.message, code=error.code)


class _CardInputField(serializers.Field[object, object, None, object]):
    """A write-only string field: JSON numbers are refused because leading zeros and length would be lost."""

    default_error_messages = {"invalid": "Must be a string."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs["write_only"] = True
        super().__init__(**kwargs)

    def to_internal_value(self, data: object) -> object:
        if not isinstance(data, str):
            self.fail("invalid")
        try:
            return self.check(data)
        except cards.CardDataError as error:
            raise _fail_with(error) from None

    def check(self, value: str) -> object:
        raise NotImplementedError

    def to_representation(self, value: object) -> None:
        # Card data is never rendered back, whatever a serializer is asked to output.
        return None


@extend_schema_field({"type": "string", "pattern": "^[0-9]{13,19}$", "writeOnly": True})
class CardNumberField(_CardInputField):
    """13 to 19 ASCII digits passing the Luhn check."""

    def check(self, value: str) -> str:
        cards.validate_card_number(value)
        return value


@extend_schema_field({"type": "string", "pattern": "^[0-9]{2}/[0-9]{2}$", "writeOnly": True})
class ExpirationDateField(_CardInputField):
    """`MM/YY`, not before the current month (UTC); the internal value is a `CardExpiry`."""

    def check(self, value: str) -> CardExpiry:
        month, year = cards.parse_expiration_date(value, today=timezone.now().date())
        return CardExpiry(month=month, year=year)


@extend_schema_field({"type": "string", "pattern": "^[0-9]{3,4}$", "nullable": True, "writeOnly": True})
class SecurityCodeField(_CardInputField):
    """3 or 4 ASCII digits; the exact count for the card's scheme is checked by `CardDetailsSerializer`."""

    def check(self, value: str) -> str:
        if not (value.isascii() and value.isdigit()):
            raise cards.CardDataError("Security code must contain only digits.", code="invalid_characters")
        if not 3 <= len(value) <= 4:
            raise cards.CardDataError("Security code must be 3 or 4 digits long.", code="invalid_length")
        return value


class BinField(serializers.CharField):
    """The first 6 to 8 digits of a card number (upstream's `bin`): a string of ASCII digits, never more of the number;
    anything else is refused without quoting it."""

    default_error_messages = {
        "invalid": f"Must be {MIN_BIN_LENGTH} to {MAX_BIN_LENGTH} digits: a card number's first digits, never more."
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", f"The first {MIN_BIN_LENGTH} to {MAX_BIN_LENGTH} digits of a card number.")
        super().__init__(trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: object) -> str:
        if not (isinstance(data, str) and data.isascii() and data.isdigit()):
            self.fail("invalid")
        if not MIN_BIN_LENGTH <= len(data) <= MAX_BIN_LENGTH:
            self.fail("invalid")
        return data


class CardDetailsSerializer(StrictSerializer):
    """Number, expiry and optional security code (4 digits for amex, 3 for every other scheme)."""

    number = CardNumberField()
    expiration_date = ExpirationDateField()
    security_code = SecurityCodeField(required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        code = attrs.get("security_code")
        if code is not None:
            try:
                cards.validate_security_code(code, cards.card_scheme(attrs["number"]))
            except cards.CardDataError as error:
                raise serializers.ValidationError({"security_code": [error.message]}, code=error.code) from None
        return attrs
