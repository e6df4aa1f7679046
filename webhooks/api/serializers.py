"""Webhook subscription shapes, field for field as the upstream schemas.

The signing secret is shown in every subscription answer, as upstream shows it (`secret`); the receiver's
password never is (`"********"`, as upstream masks it).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments.rest.fields import StrictBooleanField, StrictCharField, StrictSerializer
from payments.rest.outputs import ConstantField, OutputSerializer
from webhooks.models import AuthenticationKind, WebhookSubscription
from webhooks.outbound import MAX_URL_LENGTH
from webhooks.services.subscriptions import (
    BasicAuthentication,
    webhook_subscription_rotating,
    webhook_subscription_secret,
)

MASK = "********"
# Upstream's kinds; only `basic` is implemented (the OAuth kinds would fetch tokens from a merchant's server).
UNSUPPORTED_KINDS = ("oauth_client_credentials", "oauth_password")
MAX_CREDENTIAL_LENGTH = 255
# A year: longer than anyone keeps two secrets live, short enough that no date overflows.
MAX_DELTA_MINUTES = 525_600


class BasicAuthenticationInput(StrictSerializer):
    """Upstream's `BasicAuthenticationCreate`."""

    kind = serializers.ChoiceField(choices=[AuthenticationKind.BASIC])
    username = StrictCharField(min_length=1, max_length=MAX_CREDENTIAL_LENGTH)
    password = StrictCharField(min_length=1, max_length=MAX_CREDENTIAL_LENGTH, trim_whitespace=False)


@extend_schema_field(BasicAuthenticationInput(allow_null=True))
class AuthenticationField(serializers.Field):
    """The receiver's credentials, chosen by `kind`: `basic`; the OAuth kinds are refused by name."""

    def to_internal_value(self, data: object) -> BasicAuthentication:
        if not isinstance(data, dict):
            raise serializers.ValidationError("Must be an object.")
        kind = data.get("kind")
        if kind in UNSUPPORTED_KINDS:
            raise serializers.ValidationError({"kind": [f"'{kind}' is not supported: use 'basic'."]})
        serializer = BasicAuthenticationInput(data=data)
        serializer.is_valid(raise_exception=True)
        return BasicAuthentication(
            username=serializer.validated_data["username"], password=serializer.validated_data["password"]
        )

    def to_representation(self, value: object) -> None:
        return None


def _url(**kwargs: Any) -> StrictCharField:
    return StrictCharField(min_length=1, max_length=MAX_URL_LENGTH, trim_whitespace=False, **kwargs)


class WebhookSubscriptionCreateInput(StrictSerializer):
    """Body of `POST /webhook-subscriptions`."""

    url = _url()
    active = StrictBooleanField(default=True)
    authentication = AuthenticationField(required=False, allow_null=True)


class WebhookSubscriptionUpdateInput(StrictSerializer):
    """Body of `PUT /webhook-subscriptions/{id}`: only the fields sent change; a null `url` or `active` changes
    nothing, a null `authentication` removes the credentials."""

    url = _url(required=False, allow_null=True)
    active = StrictBooleanField(required=False, allow_null=True)
    authentication = AuthenticationField(required=False, allow_null=True)

    def changes(self) -> dict[str, Any]:
        data = self.validated_data
        changed = {name: data[name] for name in ("url", "active") if data.get(name) is not None}
        if "authentication" in data:
            changed["authentication"] = data["authentication"]
        return changed


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only: DRF's field would also take "5", 5.0 or true."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class WebhookSubscriptionRotateSecretInput(StrictSerializer):
    """Body of `POST /webhook-subscriptions/{id}/rotate-secret`."""

    delta = StrictIntegerField(min_value=0, max_value=MAX_DELTA_MINUTES, required=False, allow_null=True)


class BasicAuthenticationOutput(OutputSerializer):
    """Upstream's `BasicAuthentication`, the password masked."""

    type = ConstantField("webhook-authentication")
    kind = ConstantField(AuthenticationKind.BASIC.value)
    username = serializers.CharField(source="auth_username")
    password = ConstantField(MASK)


_BASIC = BasicAuthenticationOutput()


class WebhookSubscriptionOutput(OutputSerializer):
    """The upstream `WebhookSubscription`."""

    type = ConstantField("webhook-subscription")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    active = serializers.BooleanField()
    url = serializers.CharField()
    authentication = serializers.SerializerMethodField()
    secret = serializers.SerializerMethodField()
    rotating = serializers.SerializerMethodField()
    creator = ConstantField(None, schema={"type": "object", "nullable": True})

    @extend_schema_field(BasicAuthenticationOutput(allow_null=True))
    def get_authentication(self, subscription: WebhookSubscription) -> dict[str, Any] | None:
        return _BASIC.to_representation(subscription) if subscription.auth_kind else None

    def get_secret(self, subscription: WebhookSubscription) -> str:
        return webhook_subscription_secret(subscription)

    def get_rotating(self, subscription: WebhookSubscription) -> bool:
        return webhook_subscription_rotating(subscription)
