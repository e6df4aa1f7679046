"""Who may manage merchant accounts: only API keys made for every account."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework import exceptions
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from payments.rest.authentication import ApiPrincipal

if TYPE_CHECKING:
    from rest_framework.views import APIView


class AllMerchantAccountsKey(BasePermission):
    """Admit a token only when its API key was made for every merchant account (`create_api_key --merchant-account
    all`): a key bound to one account must not create, rename or configure others, nor learn they exist.

    Replaces `MerchantAccountAccess` on these views: they name their account in the path (or none), never in
    `x-gr4vy-merchant-account-id`.
    """

    message = "Merchant accounts are managed only with an API key made for every merchant account."

    def has_permission(self, request: Request, view: APIView) -> bool:
        principal = request.user
        if not isinstance(principal, ApiPrincipal):
            return False  # DRF answers 401 when no token authenticated
        if principal.merchant_account_id is not None:
            raise exceptions.PermissionDenied(self.message)
        return True
