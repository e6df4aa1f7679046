"""Authorization: which merchant account a request acts for, and whether its token's scopes allow the action."""

from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission

from payments.accounts.selectors import merchant_account_requested, requested_merchant_account_id
from payments.rest.authentication import ApiPrincipal


class MerchantAccountAccess(BasePermission):
    """Resolve `x-gr4vy-merchant-account-id` (absent: `default`) to an account the key may act for.

    Sets `request.merchant_account`; every queryset downstream is scoped to it.
    """

    def has_permission(self, request, view) -> bool:
        principal = request.user
        if not isinstance(principal, ApiPrincipal):
            return False
        account = merchant_account_requested(request.META)
        if account is None or principal.merchant_account_id not in (None, account.id):
            account_id = requested_merchant_account_id(request.META)
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
