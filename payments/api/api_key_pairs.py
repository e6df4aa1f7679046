"""`/api-key-pairs` and `/roles`: the keys that sign a merchant's tokens, and the roles that say what each may do.

A key pair is made, renamed, disabled and deleted over the API by a token of another key, never with more power than
that token's (its scopes that its key's roles grant, and the merchant accounts its key reaches): docs/api-keys.md.
These operations name no merchant account in `x-gr4vy-merchant-account-id`: a key sees and changes the keys reaching
no account beyond its own (a key made for every account: every key).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from payments.accounts.models import ApiKey, MerchantAccount
from payments.accounts.roles import ROLES, Role, role_by_id
from payments.accounts.selectors import api_key_pair_find, api_key_pair_list, merchant_accounts_of
from payments.accounts.services import (
    KeyMaker,
    Reach,
    api_key_pair_create,
    api_key_pair_delete,
    api_key_pair_update,
    reach_beyond,
)
from payments.audit.services import Actor, audit_record
from payments.partial import UNCHANGED, Unchanged
from payments.rest.authentication import ApiPrincipal
from payments.rest.fields import StrictBooleanField, StrictCharField, StrictSerializer, TimestampField, validated
from payments.rest.outputs import ConstantField, OutputSerializer
from payments.rest.pagination import SequencePagination
from payments.rest.permissions import ScopePermission, request_principal
from payments.rest.query import KnownQueryParameters

MAX_DISPLAY_NAME_LENGTH = 200
# Upstream's algorithm names, and the JWT algorithm each is signed with here.
ALGORITHMS = {"ECDSA": ApiKey.Algorithm.ES512, "RSA": ApiKey.Algorithm.RS512}


class _RoleIds(serializers.ListField):
    """Role ids, each one of the server's roles (`GET /roles`): read into the roles themselves."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.UUIDField(), min_length=1, max_length=len(ROLES), **kwargs)

    def to_internal_value(self, data: Any) -> list[Role]:
        ids: list[uuid.UUID] = super().to_internal_value(data)
        unknown = [str(role_id) for role_id in ids if role_by_id(role_id) is None]
        if unknown:
            raise serializers.ValidationError(f"Not a role of this server: {', '.join(unknown)}.")
        return [role for role_id in dict.fromkeys(ids) if (role := role_by_id(role_id)) is not None]


class _MerchantAccountIds(serializers.ListField):
    """`[]` for every account, or the ids of the accounts the key pair reaches, each once."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=StrictCharField(min_length=1, max_length=255), **kwargs)

    def to_internal_value(self, data: Any) -> list[str]:
        ids: list[str] = super().to_internal_value(data)
        repeated = sorted({id for id in ids if ids.count(id) > 1})
        if repeated:
            raise serializers.ValidationError(f"Each merchant account is named once: {', '.join(repeated)}.")
        return ids


class ApiKeyPairCreateInput(StrictSerializer):
    """Upstream's `APIKeyPairCreate`."""

    display_name = StrictCharField(min_length=1, max_length=MAX_DISPLAY_NAME_LENGTH)
    algorithm = serializers.ChoiceField(choices=list(ALGORITHMS), default="ECDSA")
    active = StrictBooleanField(default=True)
    role_ids = _RoleIds()
    merchant_account_ids = _MerchantAccountIds(default=list)
    public_key = StrictCharField(required=False, allow_null=True, max_length=4096, trim_whitespace=False)


class ApiKeyPairUpdateInput(StrictSerializer):
    """Upstream's `APIKeyPairUpdate`: a field left out or null is left as it is."""

    display_name = StrictCharField(required=False, allow_null=True, min_length=1, max_length=MAX_DISPLAY_NAME_LENGTH)
    active = StrictBooleanField(required=False, allow_null=True)
    role_ids = _RoleIds(required=False, allow_null=True)
    merchant_account_ids = _MerchantAccountIds(required=False, allow_null=True)


class PermissionSetOutput(OutputSerializer):
    allow = serializers.ListField(child=serializers.CharField(), source="scopes")


class RoleOutput(OutputSerializer):
    """Upstream's `Role`: one of the server's roles, its permissions in this server's scopes."""

    type = ConstantField("role")
    id = serializers.UUIDField()
    name = serializers.CharField()
    slug = serializers.CharField()
    description = serializers.CharField()
    permissions = PermissionSetOutput(source="*")
    assignable_to = ConstantField(["api-key-pair"], schema={"type": "array", "items": {"type": "string"}})
    applies_to = ConstantField([], schema={"type": "array", "items": {"type": "string"}})
    is_standalone_assignable = ConstantField(True)


class RolesOutput(OutputSerializer):
    """A page of roles: upstream's `Collection[Role]`."""

    items = RoleOutput(many=True)
    limit = serializers.IntegerField()
    next_cursor = serializers.CharField(allow_null=True)
    previous_cursor = serializers.CharField(allow_null=True)


class MerchantAccountSummaryOutput(OutputSerializer):
    type = ConstantField("merchant-account")
    id = serializers.CharField()
    display_name = serializers.CharField()
    created_at = TimestampField()
    updated_at = TimestampField()


class CreatorOutput(OutputSerializer):
    """The key whose token made the key pair (upstream's `Creator`; no dashboard users here)."""

    id = serializers.UUIDField()
    name = serializers.CharField()
    email_address = ConstantField(None, schema={"type": "string", "nullable": True})
    thumbprint = serializers.CharField(source="kid")


class ApiKeyPairOutput(OutputSerializer):
    """Upstream's `APIKeyPair`. `private_key` is answered once, by the create that made the pair."""

    type = ConstantField("api-key-pair")
    id = serializers.UUIDField()
    thumbprint = serializers.CharField(source="kid")
    display_name = serializers.CharField(source="name")  # a key made by the command before it had a name: its kid
    algorithm = serializers.ChoiceField(choices=list(ALGORITHMS), source="algorithm_family")
    active = serializers.BooleanField(source="is_active")
    private_key = serializers.SerializerMethodField()
    created_at = TimestampField()
    updated_at = TimestampField()
    last_used_at = TimestampField(allow_null=True)
    creator = CreatorOutput(source="created_by", allow_null=True)
    merchant_accounts = MerchantAccountSummaryOutput(source="reach", many=True)
    roles = RoleOutput(source="role_list", many=True)

    @extend_schema_field({"type": "string", "nullable": True})
    def get_private_key(self, api_key: ApiKey) -> str | None:
        private_key: str | None = self.context.get("private_key")
        return private_key


def maker_of(principal: ApiPrincipal) -> KeyMaker:
    """The calling token as the services see it, with its audit entry for each change it makes."""
    actor = Actor(id=principal.api_key_id, name=principal.name, is_staff=False)

    def record(api_key: ApiKey, action: str, reach: Reach) -> None:
        # The entry names the key changed and the key that changed it, once in the log of each account the change
        # concerns, so each account's log shows every key that could act for it; a key of every account: of none.
        for account_id in [None] if reach is None else sorted(reach):
            audit_record(
                actor=actor,
                action=action,
                resource_type="api-key-pair",
                resource_id=str(api_key.pk),
                resource_name=api_key.name,
                merchant_account_id=account_id,
            )

    return KeyMaker(
        api_key_id=principal.api_key_id,
        name=principal.name,
        scopes=principal.scopes,
        merchant_account_ids=principal.merchant_account_ids,
        record=record,
    )


def _merchant_accounts(ids: list[str], maker: KeyMaker) -> list[MerchantAccount] | None:
    """The accounts `merchant_account_ids` names (None: every account). An account the maker does not reach is
    refused before any id is looked up, so a key never learns which other accounts exist."""
    reach_beyond(maker, ids or None)
    if not ids:
        return None
    accounts = merchant_accounts_of(ids=ids)
    unknown = [id for id in ids if id not in {account.pk for account in accounts}]
    if unknown:
        raise serializers.ValidationError(
            {"merchant_account_ids": [f"Unknown merchant account: {', '.join(repr(id) for id in unknown)}."]}
        )
    return accounts


class ApiKeyPairViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[ApiKey]):
    """API key pairs: the keys whose private halves sign a merchant's tokens.

    A token sees and changes the key pairs reaching no merchant account beyond its own key's (a key made for every
    account: all of them), and never makes or changes a key pair into one with more power than its own. Needs
    `api-key-pairs.read` to read and `api-key-pairs.write` to change (or `*.read` / `*.write`). The
    `x-gr4vy-merchant-account-id` header is not read.

    list:
        List API key pairs
        The key pairs this token's key may see, newest first, a page at a time.

    retrieve:
        Get an API key pair
        One key pair by its id; a key pair reaching an account beyond this token's key is not found, as a missing one.
    """

    permission_classes = [ScopePermission, KnownQueryParameters]
    scope_resource = "api-key-pairs"
    queryset = ApiKey.objects.none()  # names the model for the schema; requests use get_queryset()
    serializer_class = ApiKeyPairOutput
    filterset_class = None
    lookup_url_kwarg = "api_key_pair_id"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self) -> QuerySet[ApiKey]:
        return api_key_pair_list(merchant_account_ids=request_principal(self.request).merchant_account_ids)

    def get_object(self) -> ApiKey:
        principal = request_principal(self.request)
        return api_key_pair_find(
            id=uuid.UUID(self.kwargs["api_key_pair_id"]), merchant_account_ids=principal.merchant_account_ids
        )

    @extend_schema(request=ApiKeyPairCreateInput, responses={201: ApiKeyPairOutput})
    def create(self, request: Request) -> Response:
        """Create an API key pair

        The server makes an EC P-521 (`ECDSA`, signed ES512 as the SDK signs) or RSA 4096 (`RSA`, signed RS512) pair and
        answers its private key once, in `private_key`: it is never stored and never shown again. Or send the
        `public_key` (PEM) of a pair you made; then no private key is answered. Its roles and merchant accounts may
        not exceed the calling token's own (403 naming the field).

        409: A key pair with this public key already exists.
        """
        data = validated(ApiKeyPairCreateInput(data=request.data))
        maker = maker_of(request_principal(request))
        made = api_key_pair_create(
            maker=maker,
            display_name=data["display_name"],
            roles=data["role_ids"],
            merchant_accounts=_merchant_accounts(data["merchant_account_ids"], maker),
            algorithm=ALGORITHMS[data["algorithm"]],
            public_key_pem=data.get("public_key"),
            active=data["active"],
        )
        body = ApiKeyPairOutput(made.api_key, context={"private_key": made.private_key_pem}).data
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(request=ApiKeyPairUpdateInput, responses={200: ApiKeyPairOutput})
    def update(self, request: Request, api_key_pair_id: str) -> Response:
        """Update an API key pair

        Rename it, disable it (`active: false`: its tokens are refused at once, on every host) or enable it again,
        or replace its roles or merchant accounts. Only a key pair no more powerful than the calling token may be
        changed, and never into one more powerful.
        """
        api_key = self.get_object()
        data = validated(ApiKeyPairUpdateInput(data=request.data))
        maker = maker_of(request_principal(request))
        ids = data.get("merchant_account_ids")
        accounts: list[MerchantAccount] | Unchanged | None = UNCHANGED
        if ids is not None:
            accounts = _merchant_accounts(ids, maker)
        api_key = api_key_pair_update(
            maker=maker,
            api_key=api_key,
            display_name=data.get("display_name"),
            active=data.get("active"),
            roles=data.get("role_ids"),
            merchant_accounts=accounts,
        )
        return Response(ApiKeyPairOutput(api_key).data)

    def destroy(self, request: Request, api_key_pair_id: str) -> Response:
        """Delete an API key pair

        Its tokens are refused at once, on every host. Only a key pair no more powerful than the calling token may
        be deleted.
        """
        api_key_pair_delete(maker=maker_of(request_principal(request)), api_key=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


class RoleViewSet(viewsets.GenericViewSet[Any]):
    """Roles.

    list:
        List roles
        The roles a key pair may hold, each with the scopes it grants. Needs `roles.read` (or `*.read`).
    """

    permission_classes = [ScopePermission, KnownQueryParameters]
    scope_resource = "roles"
    serializer_class = RoleOutput
    pagination_class = SequencePagination
    filterset_class = None

    def get_queryset(self) -> Any:  # no rows: roles are code
        return ApiKey.objects.none()

    # The item's shape: a list action's answer is documented as the pagination's page of it.
    @extend_schema(responses={200: RoleOutput})
    def list(self, request: Request) -> Response:
        page = SequencePagination().paginate_sequence(ROLES, request)
        return Response(RolesOutput(page).data)
