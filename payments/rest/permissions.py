"""Authorization: which merchant account a request acts for, and whether its token's scopes allow the action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import ImproperlyConfigured
from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from payments.accounts.models import MerchantAccount
from payments.accounts.selectors import (
    merchant_account_header_empty,
    merchant_account_requested,
    requested_merchant_account_id,
)
from payments.errors import DomainError
from payments.rest.authentication import ApiPrincipal

if TYPE_CHECKING:
    # Only for annotations: DRF's views module imports this one (a configured permission) while it loads.
    from rest_framework.views import APIView

# Set on DRF's request by `MerchantAccountAccess`; no attribute DRF declares, so it is set and read by name.
_ACCOUNT_ATTRIBUTE = "merchant_account"


class EmptyMerchantAccountHeader(DomainError):
    """`x-gr4vy-merchant-account-id` was sent with no value: refused rather than read as `default`."""

    def __init__(self) -> None:
        super().__init__(
            "The x-gr4vy-merchant-account-id header is empty: name a merchant account, or leave the header out.",
            pointer="/x-gr4vy-merchant-account-id",
            location="header",
        )


class MerchantAccountAccess(BasePermission):
    """Resolve `x-gr4vy-merchant-account-id` (absent: `default`) to an account the key may act for.

    Sets `request.merchant_account` (read it with `request_merchant_account`); every queryset downstream is
    scoped to it.
    """

    def has_permission(self, request: Request, view: APIView) -> bool:
        principal = request.user
        if not isinstance(principal, ApiPrincipal):
            return False
        if merchant_account_header_empty(request.META):
            raise EmptyMerchantAccountHeader()
        account = merchant_account_requested(request.META)
        if account is None or not principal.can_act_for(account.id):
            account_id = requested_merchant_account_id(request.META)
            raise exceptions.PermissionDenied(f"This API key cannot act for merchant account '{account_id}'.")
        setattr(request, _ACCOUNT_ATTRIBUTE, account)
        return True


def request_merchant_account(request: Request) -> MerchantAccount:
    """The account `MerchantAccountAccess` resolved for this request."""
    account = getattr(request, _ACCOUNT_ATTRIBUTE, None)
    if not isinstance(account, MerchantAccount):
        raise ImproperlyConfigured("Only views behind MerchantAccountAccess act for a merchant account.")
    return account


def request_principal(request: Request) -> ApiPrincipal:
    """The API caller `ApiKeyJWTAuthentication` authenticated; `MerchantAccountAccess` admits no other."""
    principal = request.user
    if not isinstance(principal, ApiPrincipal):
        raise exceptions.NotAuthenticated()
    return principal


class ScopePermission(BasePermission):
    """A viewset names its resource once; reads need `<resource>.read`, writes `<resource>.write`.

    `*.read` / `*.write` grant any resource. `embed` is accepted only for the actions a view lists in
    `embed_actions`. A view may replace the scopes of one action with `action_scopes`; any one listed
    scope is enough.
    """

    def has_permission(self, request: Request, view: APIView) -> bool:
        accepted = self.accepted_scopes(request, view)
        principal = request_principal(request)
        if any(principal.has_scope(scope) for scope in accepted):
            return True
        raise exceptions.PermissionDenied(f"This token needs one of the scopes: {', '.join(accepted)}.")

    @staticmethod
    def accepted_scopes(request: Request, view: APIView) -> tuple[str, ...]:
        action = getattr(view, "action", None)
        overrides = getattr(view, "action_scopes", {})
        if action in overrides:
            return tuple(overrides[action])
        verb = "read" if request.method in SAFE_METHODS else "write"
        resource = getattr(view, "scope_resource", None)
        if not isinstance(resource, str):
            raise ImproperlyConfigured(f"{type(view).__name__} must name its `scope_resource`.")
        scopes: tuple[str, ...] = (f"{resource}.{verb}",)
        if action in getattr(view, "embed_actions", ()):
            scopes += ("embed",)
        return scopes


class AllMerchantAccountsKey(BasePermission):
    """Admit a token only when its API key was made for every merchant account (`create_api_key --merchant-account
    all`): a key reaching some accounts only must not create, rename or configure others, nor learn they exist.

    Replaces `MerchantAccountAccess` on these views: they name their account in the path (or none), never in
    `x-gr4vy-merchant-account-id`.
    """

    message = "Merchant accounts are managed only with an API key made for every merchant account."

    def has_permission(self, request: Request, view: APIView) -> bool:
        principal = request.user
        if not isinstance(principal, ApiPrincipal):
            return False  # DRF answers 401 when no token authenticated
        if principal.merchant_account_ids is not None:
            raise exceptions.PermissionDenied(self.message)
        return True
