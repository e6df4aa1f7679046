"""Inputs a processor uses to authorize a payment, field for field as the upstream `ThreeDSecureDataV1` /
`ThreeDSecureDataV2`, `BrowserInfo`, `StatementDescriptor` and `Recipient` schemas.

Each validates into the typed, framework-free object the connector receives (`payments.connectors`), except the
recipient, which is order data kept and echoed as JSON.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments.connectors import BrowserInfo, StatementDescriptor, ThreeDSecureData
from payments.rest.fields import (
    CountryField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    optional_text,
)
from payments.shapes.addresses import AddressSerializer
from payments.shapes.order import DateTextField

CARD_SCHEMES = [
    "accel",
    "amex",
    "bancontact",
    "carte-bancaire",
    "cirrus",
    "culiance",
    "dankort",
    "diners-club",
    "discover",
    "eftpos-australia",
    "elo",
    "hipercard",
    "jcb",
    "maestro",
    "mastercard",
    "mir",
    "nyce",
    "other",
    "pulse",
    "qcard",
    "rupay",
    "star",
    "uatp",
    "unionpay",
    "visa",
]
_VERSION = r"^[12](\.\d+){0,2}$"
_ECI = r"^0?\d$"
# Required by each version's shape; the other version's own fields are not allowed with it.
_VERSION_1 = ("cavv", "eci", "version", "directory_response", "authentication_response", "cavv_algorithm", "xid")
_VERSION_2 = ("cavv", "eci", "version", "directory_response", "directory_transaction_id")


def _text(**kwargs: Any) -> StrictCharField:
    """A string as upstream types it: any length unless bounded, empty allowed unless a minimum is given."""
    kwargs.setdefault("required", False)
    kwargs.setdefault("allow_blank", "min_length" not in kwargs)
    return StrictCharField(trim_whitespace=False, **kwargs)


def _code(**kwargs: Any) -> StrictCharField:
    """At most one character of the 3-D Secure protocol (a transaction status such as Y, N, A, R, U)."""
    return _text(max_length=1, **kwargs)


class ThreeDSecureDataSerializer(StrictSerializer):
    """The result of a 3-D Secure authentication run elsewhere: version 1 (with `cavv_algorithm` and `xid`) or
    version 2 (with `directory_transaction_id`)."""

    version = serializers.RegexField(_VERSION, error_messages={"invalid": "Must be a version such as 2.2.0."})
    cavv = _text(required=True)
    eci = serializers.RegexField(_ECI, max_length=2, error_messages={"invalid": "Must be an ECI such as 05."})
    directory_response = _code(required=True)
    authentication_response = _code(allow_null=True)
    directory_transaction_id = _text()
    cavv_algorithm = _code()
    xid = _text()
    scheme = serializers.ChoiceField(choices=CARD_SCHEMES, required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        version_1 = "cavv_algorithm" in attrs or "xid" in attrs or attrs["version"].startswith("1")
        required, foreign = (_VERSION_1, "directory_transaction_id") if version_1 else (_VERSION_2, "")
        missing = [name for name in required if attrs.get(name) is None]
        errors = {name: ["This field is required for this 3-D Secure version."] for name in missing}
        if version_1 and foreign in attrs:
            errors[foreign] = ["Only sent with 3-D Secure version 2 results (without cavv_algorithm and xid)."]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    @staticmethod
    def build(data: dict[str, Any] | None) -> ThreeDSecureData | None:
        return ThreeDSecureData(**data) if data else None


class BrowserInfoSerializer(StrictSerializer):
    """The buyer's browser."""

    javascript_enabled = StrictBooleanField()
    java_enabled = StrictBooleanField()
    language = _text(required=True)
    color_depth = StrictIntegerField()
    screen_height = StrictIntegerField()
    screen_width = StrictIntegerField()
    time_zone_offset = StrictIntegerField()
    user_agent = _text(required=True)
    user_device = serializers.ChoiceField(choices=["desktop", "mobile"])
    accept_header = _text(allow_null=True)

    @staticmethod
    def build(data: dict[str, Any] | None) -> BrowserInfo | None:
        return BrowserInfo(**data) if data else None


class StatementDescriptorSerializer(StrictSerializer):
    """What the buyer's statement shows."""

    name = _text(allow_null=True, min_length=5, max_length=22)
    description = _text(allow_null=True, min_length=5, max_length=22)
    city = optional_text(50)
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    phone_number = serializers.RegexField(
        r"^\+[1-9]\d{1,14}$", required=False, allow_null=True, error_messages={"invalid": "Must be an E.164 number."}
    )
    url = optional_text(50)
    postal_code = optional_text(50)

    @staticmethod
    def build(data: dict[str, Any] | None) -> StatementDescriptor | None:
        return StatementDescriptor(**data) if data else None


class RecipientSerializer(StrictSerializer):
    """Who receives the money of an account funding transaction."""

    first_name = _text(required=True)
    last_name = _text(required=True)
    address = AddressSerializer(required=False, allow_null=True)
    account_number = _text(allow_null=True)
    date_of_birth = DateTextField(required=False, allow_null=True)
