"""`/merchant-accounts`: upstream's merchant account operations, for API keys made for every account.

Upstream's account carries settings of services this server does not run (an account updater, network tokens,
over-capture): each is refused by name when set, and answered as null (or false), so a client never believes a
setting took effect.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.core.validators import RegexValidator
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from payments.accounts.models import MerchantAccount
from payments.accounts.selectors import merchant_account_find, merchant_account_list
from payments.accounts.services import merchant_account_create, merchant_account_update
from payments.rest.fields import StrictCharField, StrictSerializer, TimestampField, UnsupportedField, validated
from payments.rest.outputs import ConstantField, OutputSerializer
from payments.rest.permissions import AllMerchantAccountsKey, ScopePermission
from payments.rest.query import KnownQueryParameters

# Upstream's `^[a-zA-Z0-9-]+$`, anchored with `\Z`: Python's `$` would also take a final newline.
ID_PATTERN = r"\A[a-zA-Z0-9-]+\Z"
MAX_ID_LENGTH = 50
MAX_DISPLAY_NAME_LENGTH = 255

_ACCOUNT_UPDATER = "this server runs no account updater service."
_NETWORK_TOKENS = "this server does not provision network tokens."
_OVER_CAPTURE = "a capture never exceeds the authorized amount on this server."
_NULLABLE_STRING = {"type": "string", "nullable": True}

# Upstream's fields this server has no use for: name -> (why, the value that asks for nothing, JSON type).
UNSUPPORTED: dict[str, tuple[str, object, str]] = {
    "account_updater_enabled": (_ACCOUNT_UPDATER, False, "boolean"),
    "account_updater_request_encryption_key": (_ACCOUNT_UPDATER, None, "string"),
    "account_updater_request_encryption_key_id": (_ACCOUNT_UPDATER, None, "string"),
    "account_updater_response_decryption_key": (_ACCOUNT_UPDATER, None, "string"),
    "account_updater_response_decryption_key_id": (_ACCOUNT_UPDATER, None, "string"),
    "loon_client_key": (_ACCOUNT_UPDATER, None, "string"),
    "loon_secret_key": (_ACCOUNT_UPDATER, None, "string"),
    "loon_accepted_schemes": (_ACCOUNT_UPDATER, None, "array"),
    "loon_merchant_account_id": (_ACCOUNT_UPDATER, None, "string"),
    "over_capture_amount": (_OVER_CAPTURE, None, "integer"),
    "over_capture_percentage": (_OVER_CAPTURE, None, "integer"),
    "async_network_tokens_enabled": (_NETWORK_TOKENS, False, "boolean"),
    **{
        f"{scheme}_network_tokens_{part}": (_NETWORK_TOKENS, None, "string")
        for scheme in ("visa", "amex", "mastercard", "discover")
        for part in ("requestor_id", "app_id")
    },
}


def _unsupported_fields() -> dict[str, UnsupportedField]:
    return {
        name: UnsupportedField(reason, accepts=accepts, json_type=json_type)
        for name, (reason, accepts, json_type) in UNSUPPORTED.items()
    }


class MerchantAccountCreateInput(StrictSerializer):
    """Upstream's `MerchantAccountCreate`."""

    id = StrictCharField(
        min_length=1,
        max_length=MAX_ID_LENGTH,
        trim_whitespace=False,
        validators=[RegexValidator(ID_PATTERN, "Only letters, digits and dashes.")],
    )
    display_name = StrictCharField(min_length=1, max_length=MAX_DISPLAY_NAME_LENGTH, trim_whitespace=False)

    def get_fields(self) -> dict[str, Any]:
        return {**super().get_fields(), **_unsupported_fields()}


class MerchantAccountUpdateInput(StrictSerializer):
    """Upstream's `MerchantAccountUpdate`: a null or absent `display_name` leaves it as it is."""

    display_name = StrictCharField(
        required=False, allow_null=True, min_length=1, max_length=MAX_DISPLAY_NAME_LENGTH, trim_whitespace=False
    )

    def get_fields(self) -> dict[str, Any]:
        return {**super().get_fields(), **_unsupported_fields()}


class MerchantAccountOutput(OutputSerializer):
    """Upstream's `MerchantAccount`; the settings of services this server does not run are null (or false)."""

    type = ConstantField("merchant-account")
    id = serializers.CharField()
    display_name = serializers.CharField()
    account_updater_enabled = ConstantField(False)
    async_network_tokens_enabled = ConstantField(False)
    over_capture_amount = ConstantField(None, schema={"type": "integer", "nullable": True})
    over_capture_percentage = ConstantField(None, schema={"type": "integer", "nullable": True})
    created_at = TimestampField()
    updated_at = TimestampField()

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        for name, (_, accepts, json_type) in UNSUPPORTED.items():
            if name not in fields and accepts is None:
                schema = {"type": json_type, "nullable": True}
                if json_type == "array":
                    schema["items"] = {"type": "string"}
                fields[name] = ConstantField(None, schema=schema)
        return fields


# django-filter ships no types, so its classes are Any to mypy: subclassing one is allowed here on purpose.
class MerchantAccountFilter(django_filters.FilterSet):  # type: ignore[misc]
    search = django_filters.CharFilter(method="filter_search", max_length=200)

    def filter_search(self, queryset: QuerySet[MerchantAccount], name: str, value: str) -> QuerySet[MerchantAccount]:
        return queryset & merchant_account_list(search=value)


class MerchantAccountViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[MerchantAccount]
):
    """Merchant accounts: the tenants every other resource belongs to, managed by a platform.

    Only tokens of an API key made for every merchant account may call these (`create_api_key --merchant-account
    all`); a key reaching some accounts only is refused with 403. The `x-gr4vy-merchant-account-id` header is not read.

    list:
        List merchant accounts
        Every merchant account, newest first, a page at a time. `search` matches part of the id or of the display
        name. Needs the `merchant-accounts.read` scope.

    retrieve:
        Get a merchant account
        One merchant account by its id. Needs the `merchant-accounts.read` scope.
    """

    permission_classes = [AllMerchantAccountsKey, ScopePermission, KnownQueryParameters]
    scope_resource = "merchant-accounts"
    queryset = MerchantAccount.objects.none()  # names the model for the schema; requests use get_queryset()
    serializer_class = MerchantAccountOutput
    filterset_class = MerchantAccountFilter
    lookup_url_kwarg = "merchant_account_id"
    # Account ids are slugs, not UUIDs (the router matches UUIDs unless told otherwise).
    lookup_value_regex = "[-a-zA-Z0-9_]+"
    http_method_names = ["get", "post", "put"]

    def get_queryset(self) -> QuerySet[MerchantAccount]:
        return merchant_account_list()

    def get_object(self) -> MerchantAccount:
        return merchant_account_find(id=self.kwargs["merchant_account_id"])

    @extend_schema(request=MerchantAccountCreateInput, responses={201: MerchantAccountOutput})
    def create(self, request: Request) -> Response:
        """Create a merchant account

        A new tenant with its `id` (letters, digits and dashes, at most 50) and display name; send its id in
        `x-gr4vy-merchant-account-id` to act for it. It starts with the sandbox payment service. Needs the
        `merchant-accounts.write` scope. Settings of services this server does not run (account updater, network
        tokens, over-capture) are refused by name unless null (or false).

        409: A merchant account with this `id` already exists.
        """
        data = validated(MerchantAccountCreateInput(data=request.data))
        account = merchant_account_create(id=data["id"], display_name=data["display_name"], exists_ok=False)
        return Response(MerchantAccountOutput(account).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=MerchantAccountUpdateInput, responses={200: MerchantAccountOutput})
    def update(self, request: Request, merchant_account_id: str) -> Response:
        """Update a merchant account

        Renames the account; the id never changes. Needs the `merchant-accounts.write` scope.
        """
        account = self.get_object()
        data = validated(MerchantAccountUpdateInput(data=request.data))
        account = merchant_account_update(account=account, display_name=data.get("display_name"))
        return Response(MerchantAccountOutput(account).data)
