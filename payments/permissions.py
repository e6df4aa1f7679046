"""Authorization: which merchant account a request acts for, and whether its token's scopes allow the action."""

import re

from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission

from payments.authentication import ApiPrincipal
from payments.selectors import merchant_account_get

MERCHANT_ACCOUNT_HEADER = "HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID"
DEFAULT_MERCHANT_ACCOUNT = "default"
_ACCOUNT_ID = re.compile(r"[-a-zA-Z0-9_]{1,255}")


class MerchantAccountAccess(BasePermission):
    """Resolve `x-gr4vy-merchant-account-id` (absent: `default`) to an account the key may act for.

    Sets `request.merchant_account`; every queryset downstream is scoped to it.
    """

    def has_permission(self, request, view) -> bool:
        principal = request.user
        if not isinstance(principal, ApiPrincipal):
            return False
        account_id = request.META.get(MERCHANT_ACCOUNT_HEADER) or DEFAULT_MERCHANT_ACCOUNT
        # Only slug-shaped ids reach the database (a NUL byte would be a 500 on PostgreSQL).
        account = merchant_account_get(id=account_id) if _ACCOUNT_ID.fullmatch(account_id) else None
        if account is None or principal.merchant_account_id not in (None, account.id):
            raise exceptions.PermissionDenied(f"This API key cannot act for merchant account '{account_id}'.")
        request.merchant_account = account
        return True


class ScopePermission(BasePermission):
    """A viewset names its resource once; reads need `<resource>.read`, writes `<resource>.write`.

    `*.read` / `*.write` grant any resource. `embed` is accepted only for the actions a view lists in
    `embed_actions`. A view may replace the scopes of one action with `action_scopes`; any one listed
    scope is enough.
    """

    def has_permission(self, request, view) -> bool:
        accepted = self.accepted_scopes(request, view)
        if any(request.user.has_scope(scope) for scope in accepted):
            return True
        raise exceptions.PermissionDenied(f"This token needs one of the scopes: {', '.join(accepted)}.")

    @staticmethod
    def accepted_scopes(request, view) -> tuple[str, ...]:
        action = getattr(view, "action", None)
        overrides = getattr(view, "action_scopes", {})
        if action in overrides:
            return tuple(overrides[action])
        verb = "read" if request.method in SAFE_METHODS else "write"
        scopes = (f"{view.scope_resource}.{verb}",)
        if action in getattr(view, "embed_actions", ()):
            scopes += ("embed",)
        return scopes
