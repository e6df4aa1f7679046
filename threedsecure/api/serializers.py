"""3-D Secure scenario and configuration shapes, field for field as upstream's schemas.

A scenario's card number is taken in and never given back: the answer shows it as BIN, a mask and last 4.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator, URLValidator
from rest_framework import serializers

from payments.rest.fields import (
    AmountField,
    CurrencyField,
    StrictCharField,
    StrictSerializer,
    TimestampField,
    optional_text,
)
from payments.rest.outputs import ConstantField, OutputSerializer
from payments.shapes.cards import CardNumberField
from threedsecure.models import AuthenticationStatus, CardScheme, ChallengeResult
from threedsecure.scenarios import ScenarioConditions, ScenarioOutcome
from threedsecure.validators import validate_acquirer_bin, validate_category_code, validate_numeric_country

# EMV 3DS message versions: 1, 2, 2.2 or 2.2.0 (ASCII digits only; `\Z`, as `$` would take a final newline).
VERSION_PATTERN = r"\A[12](\.[0-9]+){0,2}\Z"
MAX_VERSION_LENGTH = 16
MAX_URL_LENGTH = 2048
MAX_METADATA_KEYS = 20
MAX_METADATA_KEY_LENGTH = 40
MAX_METADATA_VALUE_LENGTH = 500

# --- scenarios -------------------------------------------------------------------------------------------------


class ScenarioConditionsInput(StrictSerializer):
    """Upstream's `ThreeDSecureScenarioConditions`: every field optional; null means "any"."""

    first_name = optional_text(255)
    last_name = optional_text(255)
    email_address = optional_text(320)
    amount = AmountField(required=False, allow_null=True)
    external_identifier = optional_text(200)
    # Card data: validated as a payment's number is (a number that could never be paid with could never match).
    card_number = CardNumberField(required=False, allow_null=True)

    def to_conditions(self, data: dict[str, Any]) -> ScenarioConditions:
        return ScenarioConditions(
            amount=data.get("amount"),
            card_number=data.get("card_number"),
            email_address=data.get("email_address"),
            first_name=data.get("first_name"),
            last_name=data.get("last_name"),
            external_identifier=data.get("external_identifier"),
        )


class OutcomeAuthenticationInput(StrictSerializer):
    transaction_status = serializers.ChoiceField(choices=AuthenticationStatus.values)


class OutcomeResultInput(StrictSerializer):
    transaction_status = serializers.ChoiceField(choices=ChallengeResult.values)


class ScenarioOutcomeInput(StrictSerializer):
    """Upstream's `ThreeDSecureScenarioOutcome`: `result` is required for a challenge (`C`) and only then."""

    version = StrictCharField(
        required=False,
        allow_null=True,
        max_length=MAX_VERSION_LENGTH,
        trim_whitespace=False,
        validators=[RegexValidator(VERSION_PATTERN, "Must be a 3-D Secure version such as 2.2.0.")],
    )
    authentication = OutcomeAuthenticationInput()
    result = OutcomeResultInput(required=False, allow_null=True)

    def to_outcome(self, data: dict[str, Any]) -> ScenarioOutcome:
        result = data.get("result")
        return ScenarioOutcome(
            version=data.get("version"),
            authentication=data["authentication"]["transaction_status"],
            result=result["transaction_status"] if result else None,
        )


class ScenarioCreateInput(StrictSerializer):
    """Body of `POST /three-ds-scenarios`."""

    conditions = ScenarioConditionsInput()
    outcome = ScenarioOutcomeInput()

    def parts(self) -> dict[str, Any]:
        data = self.validated_data
        return {
            "conditions": ScenarioConditionsInput().to_conditions(data["conditions"]),
            "outcome": ScenarioOutcomeInput().to_outcome(data["outcome"]),
        }


class ScenarioUpdateInput(StrictSerializer):
    """Body of `PUT /three-ds-scenarios/{id}`: a part sent replaces that part as a whole; null or absent keeps it."""

    conditions = ScenarioConditionsInput(required=False, allow_null=True)
    outcome = ScenarioOutcomeInput(required=False, allow_null=True)

    def parts(self) -> dict[str, Any]:
        data = self.validated_data
        conditions, outcome = data.get("conditions"), data.get("outcome")
        return {
            "conditions": None if conditions is None else ScenarioConditionsInput().to_conditions(conditions),
            "outcome": None if outcome is None else ScenarioOutcomeInput().to_outcome(outcome),
        }


class ScenarioConditionsOutput(OutputSerializer):
    first_name = serializers.CharField(allow_null=True)
    last_name = serializers.CharField(allow_null=True)
    email_address = serializers.CharField(allow_null=True)
    amount = serializers.IntegerField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    card_number = serializers.CharField(
        source="masked_card_number", allow_null=True, help_text="BIN, a mask and the last 4: never the number."
    )


class _StatusOutput(OutputSerializer):
    transaction_status = serializers.CharField(source="*")


class ScenarioOutcomeOutput(OutputSerializer):
    version = serializers.CharField(allow_null=True)
    authentication = _StatusOutput(source="authentication_status")
    result = _StatusOutput(source="result_status", allow_null=True)


class ScenarioOutput(OutputSerializer):
    """Upstream's `ThreeDSecureScenario`."""

    type = ConstantField("three-d-secure-scenario")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    created_at = TimestampField()
    updated_at = TimestampField()
    conditions = ScenarioConditionsOutput(source="*")
    outcome = ScenarioOutcomeOutput(source="*")


# --- configurations --------------------------------------------------------------------------------------------


class MetadataField(serializers.DictField):
    """Flat string key/value pairs: at most 20, keys up to 40 characters and values up to 500."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=StrictCharField(max_length=MAX_METADATA_VALUE_LENGTH, allow_blank=True), **kwargs)

    def to_internal_value(self, data: Any) -> dict[str, str]:
        value: dict[str, str] = super().to_internal_value(data)
        if len(value) > MAX_METADATA_KEYS:
            raise serializers.ValidationError(f"At most {MAX_METADATA_KEYS} keys.")
        if any(not 1 <= len(key) <= MAX_METADATA_KEY_LENGTH for key in value):
            raise serializers.ValidationError(f"Keys must be 1 to {MAX_METADATA_KEY_LENGTH} characters long.")
        return value


def _text(max_length: int, *validators: Any, required: bool = True, min_length: int = 1) -> StrictCharField:
    return StrictCharField(
        min_length=min_length,
        max_length=max_length,
        required=required,
        allow_null=not required,
        trim_whitespace=False,
        validators=list(validators),
    )


def _url(required: bool = True) -> StrictCharField:
    return _text(MAX_URL_LENGTH, URLValidator(schemes=["https", "http"]), required=required)


class ConfigurationCreateInput(StrictSerializer):
    """Upstream's `MerchantAccountThreeDSConfigurationCreate`."""

    scheme = serializers.ChoiceField(choices=CardScheme.values)
    currency = CurrencyField(required=False, allow_null=True, min_length=3, max_length=3)
    merchant_acquirer_bin = _text(11, validate_acquirer_bin)
    merchant_acquirer_id = _text(35)
    merchant_name = _text(40)
    merchant_country_code = _text(3, validate_numeric_country)
    merchant_category_code = _text(4, validate_category_code, min_length=4)
    merchant_url = _url()
    metadata = MetadataField()


class ConfigurationUpdateInput(StrictSerializer):
    """Upstream's `MerchantAccountThreeDSConfigurationUpdate`: absent or null keeps a field, except `currency`,
    whose null makes the configuration apply to every currency."""

    scheme = serializers.ChoiceField(choices=CardScheme.values, required=False, allow_null=True)
    currency = CurrencyField(required=False, allow_null=True, min_length=3, max_length=3)
    merchant_acquirer_bin = _text(11, validate_acquirer_bin, required=False)
    merchant_acquirer_id = _text(35, required=False)
    merchant_name = _text(40, required=False)
    merchant_country_code = _text(3, validate_numeric_country, required=False)
    merchant_category_code = _text(4, validate_category_code, required=False, min_length=4)
    merchant_url = _url(required=False)
    metadata = MetadataField(required=False, allow_null=True)

    def changes(self) -> dict[str, Any]:
        data = self.validated_data
        changed = {name: value for name, value in data.items() if value is not None}
        if "currency" in data:
            changed["currency"] = data["currency"]
        return changed


class ConfigurationOutput(OutputSerializer):
    """Upstream's `MerchantAccountThreeDSConfiguration`."""

    type = ConstantField("merchant-account.three-ds-configuration")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    scheme = serializers.CharField()
    currency = serializers.CharField(allow_null=True)
    merchant_acquirer_bin = serializers.CharField()
    merchant_acquirer_id = serializers.CharField()
    merchant_name = serializers.CharField()
    merchant_country_code = serializers.CharField()
    merchant_category_code = serializers.CharField()
    merchant_url = serializers.CharField()
    metadata = serializers.DictField(child=serializers.CharField())
    created_at = TimestampField()
    updated_at = TimestampField()


class ConfigurationListOutput(OutputSerializer):
    """Upstream's `MerchantAccountThreeDSConfigurations`: every configuration at once (there are no pages)."""

    items = ConfigurationOutput(many=True)


class ConfigurationListQuery(StrictSerializer):
    currency = CurrencyField(required=False, min_length=3, max_length=3)
