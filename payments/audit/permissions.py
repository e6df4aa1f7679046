"""The API hook of the audit log: a default permission, so every view, present and future, passes through it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from payments.audit.services import Actor, ApiWrite, api_write_begin
from payments.rest.permissions import request_merchant_account, request_principal

if TYPE_CHECKING:
    from rest_framework.views import APIView


class AuditedWrites(BasePermission):
    """Note the caller of a write the other permissions admitted; what it saves is recorded as it is saved.

    Last in DEFAULT_PERMISSION_CLASSES: a refused request is never noted. Grants nothing and refuses nothing.
    """

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method not in SAFE_METHODS:
            principal = request_principal(request)
            api_write_begin(
                ApiWrite(
                    actor=Actor(id=principal.api_key_id, name=principal.name, is_staff=False),
                    merchant_account_id=request_merchant_account(request).id,
                    view_action=getattr(view, "action", None),
                    # Every viewset names its model by `queryset` (for the schema); a view without one records nothing.
                    resource_model=getattr(getattr(view, "queryset", None), "model", None),
                )
            )
        return True
