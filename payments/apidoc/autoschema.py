"""What every operation shares, derived from the view: error responses in the envelope, headers (the merchant
account header among them)."""

from __future__ import annotations

import inspect
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from payments.accounts.selectors import DEFAULT_MERCHANT_ACCOUNT
from payments.apidoc.text import (
    OperationText,
    operation_text,
)
from payments.ratelimits.throttles import RateLimitedMixin
from payments.rest.envelope import ErrorOutput
from payments.rest.fields import StrictSerializerMixin
from payments.rest.idempotency import HEADER as IDEMPOTENCY_HEADER
from payments.rest.idempotency import honours_idempotency_key
from payments.rest.permissions import MerchantAccountAccess, ScopePermission
from payments.rest.query import KnownQueryParameters

MERCHANT_ACCOUNT_HEADER = "x-gr4vy-merchant-account-id"

_ERRORS = {
    "400": "The request is not valid: a query parameter, header or body field is unknown, missing or malformed "
    "(`details` names each one), or the request breaks a rule of the operation.",
    "401": "No valid bearer token: it is missing, malformed, expired, or signed with a key the server does not "
    "know. The answer carries `WWW-Authenticate: Bearer`.",
    "403": "The token carries none of the scopes this operation accepts ({scopes}), or its API key may not act "
    "for the merchant account in `x-gr4vy-merchant-account-id`.",
    "404": "Nothing with this id exists in the merchant account (objects of other merchant accounts are not "
    "found either).",
    "409": "A request with the same `Idempotency-Key` is still being processed: retry it later.",
    "414": "The request line (method, path and query string) is over 8190 bytes: send fewer or shorter query values.",
    "429": "Too many requests with this embed token or session: wait `Retry-After` seconds. Server-to-server "
    "tokens are never limited.",
}
_SUCCESSES = {"200": "Success.", "201": "Created.", "204": "Done; no body."}
_EMBED_403 = " An embed token may only do what its `embed` claim pins (amount, currency, buyer)."

_HEADERS = {
    IDEMPOTENCY_HEADER.lower(): "Up to 255 printable ASCII characters naming this request. The first answer is "
    "stored for 24 hours and replayed (with `Idempotent-Replayed: true`) for a retry of the same request; the same "
    "key with a different request is a 400.",
    "prefer": "`resource=transaction-capture` or `resource=transaction-void`: answer with the action (its status "
    "and the transaction) instead of the transaction alone.",
    MERCHANT_ACCOUNT_HEADER: "The merchant account to act for; `default` when absent. An API key bound to one "
    "merchant account may act for it only.",
}

_RESPONSE_HEADERS = [
    OpenApiParameter("WWW-Authenticate", str, OpenApiParameter.HEADER, response=["401"], description="`Bearer`"),
    OpenApiParameter(
        "Retry-After", int, OpenApiParameter.HEADER, response=["429"], description="Seconds until a retry may pass."
    ),
    *(
        OpenApiParameter(name, int, OpenApiParameter.HEADER, response=["429"], description=description)
        for name, description in [
            ("RateLimit-Limit", "Requests allowed in the window."),
            ("RateLimit-Remaining", "Requests left in the window."),
            ("RateLimit-Reset", "Seconds until the window ends."),
        ]
    ),
]


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, filling in from each view what the module docstring lists."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        if operation is not None and not self.view.get_authenticators():
            operation["security"] = []  # reads no token (Secure Fields): not the document's default bearer token
        return operation

    def _handler(self) -> str:
        return getattr(self.view, "action", None) or self.method.lower()

    def _text(self) -> OperationText:
        return operation_text(type(self.view), self._handler())

    def get_summary(self) -> str | None:
        return self._text().summary or None

    def get_description(self) -> str:  # type: ignore[override]  # the base class declares no type
        return self._text().description

    def _permissions(self) -> list[Any]:
        return list(self.view.get_permissions())

    def _acts_for_merchant_account(self) -> bool:
        # A tuple: DRF's permission classes overload `|` to compose permissions.
        checks = (MerchantAccountAccess, ScopePermission)
        return any(isinstance(permission, checks) for permission in self._permissions())

    def _idempotent(self) -> bool:
        return honours_idempotency_key(getattr(self.view, self._handler(), None))

    def _rate_limited(self) -> bool:
        return isinstance(self.view, RateLimitedMixin) and bool(self.view.rate_limits.get(self._handler()))

    def get_override_parameters(self) -> list[Any]:
        parameters: list[Any] = list(_RESPONSE_HEADERS)
        # Views that name their account in the path (merchant account administration) do not read the header.
        if any(isinstance(permission, MerchantAccountAccess) for permission in self._permissions()):
            parameters.append(OpenApiParameter(MERCHANT_ACCOUNT_HEADER, str, OpenApiParameter.HEADER))
        if self._idempotent():
            parameters.append(OpenApiParameter(IDEMPOTENCY_HEADER.lower(), str, OpenApiParameter.HEADER))
        return parameters

    def _get_parameters(self) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super()._get_parameters()
        for parameter in parameters:
            if parameter["in"] == "header" and parameter["name"].lower() in _HEADERS:
                parameter.setdefault("description", _HEADERS[parameter["name"].lower()])
            if parameter["name"] == MERCHANT_ACCOUNT_HEADER:
                parameter["schema"] = {"type": "string", "pattern": "^[-a-zA-Z0-9_]{1,255}$"}
                parameter["example"] = DEFAULT_MERCHANT_ACCOUNT
            elif parameter["name"] == IDEMPOTENCY_HEADER.lower():
                parameter["schema"] = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"}
                parameter["example"] = "order-12345-payment"
        return parameters

    def error_responses(self) -> dict[str, str]:
        """Every error this operation can answer, with when it does."""
        errors: dict[str, str] = {}
        takes_query = any(isinstance(p, KnownQueryParameters) for p in self._permissions())
        if takes_query or self._get_request_body():  # type: ignore[no-untyped-call]
            errors["400"] = _ERRORS["400"]
        if self.view.get_authenticators():
            errors["401"] = _ERRORS["401"]
        if self._acts_for_merchant_account():
            errors["403"] = _ERRORS["403"].format(scopes=self._scopes())
            if "embed" in ScopePermission.accepted_scopes(self.view.request, self.view):
                errors["403"] += _EMBED_403
        if "{" in self.path:
            errors["404"] = _ERRORS["404"]
        if self._idempotent():
            errors["409"] = _ERRORS["409"]
        if takes_query:  # repeated query values can outgrow the request line gunicorn reads
            errors["414"] = _ERRORS["414"]
        if self._rate_limited():
            errors["429"] = _ERRORS["429"]
        for status, reason in self._text().statuses.items():
            errors[status] = f"{reason} {errors[status]}" if status in errors else reason
        return errors

    def _scopes(self) -> str:
        scopes = ScopePermission.accepted_scopes(self.view.request, self.view)
        wildcards = {f"*.{scope.rpartition('.')[2]}" for scope in scopes if "." in scope}
        return ", ".join(f"`{scope}`" for scope in [*scopes, *sorted(wildcards)])

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)  # type: ignore[no-untyped-call]
        if direction == "request" and isinstance(serializer, StrictSerializerMixin):
            schema["additionalProperties"] = False  # an unknown field is refused by name
        # Only a serializer's own docstring describes it: an inherited one describes the base class.
        own = type(serializer).__dict__.get("__doc__")
        if own:
            schema["description"] = inspect.cleandoc(own)
        else:
            schema.pop("description", None)
        return schema

    def _is_list_view(self, serializer: Any = None) -> bool:
        # An unpaginated list still answers an object (`{"items": [...]}`, as upstream): this API has no bare arrays.
        # Asked without a serializer, the question is only how to name the operation (`..._list`): the same answer.
        if serializer is not None and self._get_paginator() is None:  # type: ignore[no-untyped-call]
            return False
        return bool(super()._is_list_view(serializer))

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for status, response in responses.items():
            if not response.get("description"):
                response["description"] = _SUCCESSES.get(status, "Success.")
        for status, description in self.error_responses().items():
            error = OpenApiResponse(ErrorOutput, description=description)
            responses[status] = self._get_response_for_code(error, status, direction=direction)  # type: ignore[no-untyped-call]
        return dict(sorted(responses.items()))

    def _get_response_headers_for_code(self, status_code: str, direction: Any = "response") -> dict[str, Any]:
        if status_code == "429" and not self._rate_limited():
            return {}
        headers: dict[str, Any] = super()._get_response_headers_for_code(status_code, direction)
        return headers
