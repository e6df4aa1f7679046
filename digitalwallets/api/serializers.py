"""Digital wallet shapes, field for field as upstream's `DigitalWalletCreate`, `DigitalWalletUpdate`, `DigitalWallet`
and the session requests; and this server's own: a wallet's key pairs and a certificate Apple signed."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from django.utils import timezone
from rest_framework import serializers

from digitalwallets.models import DigitalWallet, DigitalWalletProvider
from payments.rest.fields import StrictBooleanField, StrictCharField, StrictSerializer, optional_text
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField

_COUNTRY = RegexValidator(r"^[A-Z]{2}$", "Must be an ISO 3166-1 alpha-2 country code in capitals, such as US.")
_STATE = RegexValidator(r"^[A-Z]{2}-[A-Z0-9]{1,3}$", "Must be an ISO 3166-2 code such as US-CA or GB-LND.")
_CATEGORY = RegexValidator(r"^[0-9]{4}$", "Must be a merchant category code of 4 digits.")
MAX_DOMAINS = 100


def _text(max_length: int, **kwargs: Any) -> StrictCharField:
    return StrictCharField(min_length=1, max_length=max_length, trim_whitespace=False, **kwargs)


class DigitalWalletAddressInput(StrictSerializer):
    """Upstream's `DigitalWalletAddress`."""

    line1 = _text(255)
    line2 = optional_text(255)
    city = _text(100)
    state_code = _text(6, validators=[_STATE])
    postal_code = _text(50)


def _domains(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=_text(253), max_length=MAX_DOMAINS, **kwargs)


class DigitalWalletCreateInput(StrictSerializer):
    """Body of `POST /digital-wallets` (upstream's `DigitalWalletCreate`)."""

    provider = serializers.ChoiceField(choices=DigitalWalletProvider.values)
    merchant_name = _text(1024)
    merchant_display_name = optional_text(1024)
    merchant_url = optional_text(2048)
    merchant_country_code = optional_text(2, validators=[_COUNTRY])
    merchant_category_code = optional_text(4, validators=[_CATEGORY])
    address = DigitalWalletAddressInput(required=False, allow_null=True)
    extra_configuration = serializers.DictField(required=False, allow_null=True)
    domain_names = _domains(required=False)
    accept_terms_and_conditions = StrictBooleanField()


class DigitalWalletUpdateInput(StrictSerializer):
    """Body of `PUT /digital-wallets/{id}` (upstream's `DigitalWalletUpdate`): a field left out stays as it is; null
    clears it, except `merchant_name` and `domain_names`, which null leaves as they are."""

    merchant_name = optional_text(1024)
    domain_names = _domains(required=False, allow_null=True)
    merchant_display_name = optional_text(1024)
    merchant_url = optional_text(2048)
    merchant_country_code = optional_text(2, validators=[_COUNTRY])
    merchant_category_code = optional_text(4, validators=[_CATEGORY])
    address = DigitalWalletAddressInput(required=False, allow_null=True)
    extra_configuration = serializers.DictField(required=False, allow_null=True)

    def changes(self) -> dict[str, Any]:
        data = dict(self.validated_data)
        for name in ("merchant_name", "domain_names"):
            if data.get(name, ...) is None:
                del data[name]
        return data


class DigitalWalletDomainInput(StrictSerializer):
    """Upstream's `DigitalWalletDomain`."""

    domain_name = _text(253)


class ApplePaySessionInput(StrictSerializer):
    """Upstream's `ApplePaySessionRequest`."""

    validation_url = _text(2048)
    domain_name = _text(253)


class GooglePaySessionInput(StrictSerializer):
    """Upstream's `GooglePaySessionRequest`."""

    origin_domain = _text(253)


class CertificateUploadInput(StrictSerializer):
    """A certificate Apple signed for one of the wallet's certificate signing requests: the `.cer` file in base64, or
    PEM."""

    certificate = _text(20000)


def _certificate_counts(wallet: DigitalWallet) -> dict[str, int]:
    """Apple Pay's certificates by state: active (signed and in date), pending (not uploaded yet), expired."""
    counts = {"active": 0, "pending": 0, "expired": 0}
    now = timezone.now()
    for key in wallet.keys.all():
        if key.csr is None:
            continue
        if key.certificate is None:
            counts["pending"] += 1
        elif key.certificate_expires_at is not None and key.certificate_expires_at <= now:
            counts["expired"] += 1
        else:
            counts["active"] += 1
    return counts


class _CertificateCount(serializers.IntegerField):
    def __init__(self, state: str) -> None:
        self.state = state
        super().__init__(source="*", read_only=True)

    def to_representation(self, value: DigitalWallet) -> int:  # type: ignore[override]
        return _certificate_counts(value)[self.state]


class DigitalWalletOutput(OutputSerializer):
    """Upstream's `DigitalWallet`."""

    type = ConstantField("digital-wallet")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    provider = serializers.CharField()
    merchant_name = serializers.CharField()
    merchant_display_name = serializers.CharField(allow_null=True)
    merchant_url = serializers.CharField(allow_null=True)
    merchant_country_code = serializers.CharField(allow_null=True)
    merchant_category_code = serializers.CharField(allow_null=True)
    address = StoredJsonField(DigitalWalletAddressInput(allow_null=True), allow_null=True)
    extra_configuration = serializers.DictField(allow_null=True)
    domain_names = serializers.ListField(child=serializers.CharField())
    active_certificate_count = _CertificateCount("active")
    pending_certificate_count = _CertificateCount("pending")
    expired_certificate_count = _CertificateCount("expired")
    fields = ConstantField(None, schema={"type": "object", "nullable": True})  # type: ignore[assignment]
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class DigitalWalletListOutput(OutputSerializer):
    """Upstream's `DigitalWallets`: every wallet of the account at once (there are no pages: one per provider)."""

    items = DigitalWalletOutput(many=True)


class WalletKeyOutput(OutputSerializer):
    """A key pair of a wallet, as it may be shown: never its private half."""

    type = ConstantField("digital-wallet.key")
    id = serializers.UUIDField()
    purpose = serializers.CharField()
    algorithm = serializers.CharField()
    public_key = serializers.CharField()
    certificate_signing_request = serializers.CharField(source="csr", allow_null=True)
    certificate = serializers.CharField(allow_null=True)
    certificate_expires_at = serializers.DateTimeField(allow_null=True)


class WalletKeyListOutput(OutputSerializer):
    items = WalletKeyOutput(many=True)
