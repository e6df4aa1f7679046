"""Enumeration defence as DRF throttles: a request budget per subject (an embed token, a URL parameter such
as a checkout session id) and endpoint (docs/rate-limits.md).

Server-to-server tokens (valid tokens without the `embed` scope) are never counted or refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from payments.errors import ServiceUnavailable
from payments.ratelimits.counters import RateLimitCacheUnavailable, Usage, count
from payments.ratelimits.records import rate_limit_event_record
from payments.rest.authentication import ApiKeyJWTAuthentication, ApiPrincipal

if TYPE_CHECKING:
    from rest_framework.views import APIView

    # What RateLimitedMixin is mixed into, so its super() calls and `self.request` are checked.
    _ViewBase = APIView
else:
    _ViewBase = object

_ROUTE_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")
_ROUTE_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")
_USAGE_ATTRIBUTE = "rate_limit_usage"


@dataclass(frozen=True)
class Subject:
    """Who a budget belongs to: the counter key, and what the record and the 429 message may show."""

    kind: str  # what is limited, e.g. "embed_token"; recorded as the event's kind
    key: str
    description: str  # words for the 429 message: "Too many requests for this <description> ..."
    label: str = ""  # what support may see of the subject in the record; never a secret
    merchant_account_id: str | None = None


class RateLimitExceeded(Throttled):
    """429: the message names the subject and the endpoint; `wait` becomes Retry-After."""

    def __init__(self, *, subject: Subject, endpoint: str, usage: Usage) -> None:
        super().__init__(
            wait=usage.reset,
            detail=f"Too many requests for this {subject.description} on {endpoint} (limit {usage.rate}).",
            code="too_many_requests",
        )


def endpoint_name(request: Request, *, with_method: bool = True) -> str:
    """`POST /gift-cards/balances`: the route template, so every id shares one name."""
    match = request.resolver_match
    route = match.route if match is not None else request.path
    route = _ROUTE_CONVERTER.sub(r"{\1}", _ROUTE_GROUP.sub(r"{\1}", route)).strip("^$").lstrip("/")
    return f"{request.method} /{route}" if with_method else f"/{route}"


class RateLimitThrottle(BaseThrottle):
    """One budget per subject and endpoint; refuses with 429, or 503 when the cache is down and failing closed.

    Subclasses say who the subject is (None: not limited) and which setting holds the rate.
    """

    rate_setting: str
    scope: str

    def subject(self, request: Request, view: APIView) -> Subject | None:
        raise NotImplementedError

    def endpoint(self, request: Request, view: APIView) -> str:
        return endpoint_name(request)

    def allow_request(self, request: Request, view: APIView) -> bool:
        subject = self.subject(request, view)
        if subject is None:
            return True
        endpoint = self.endpoint(request, view)
        rate = getattr(settings, self.rate_setting)
        try:
            usage = count(group=f"{self.scope}:{endpoint}", subject=subject.key, rate=rate)
        except RateLimitCacheUnavailable:
            if settings.RATELIMIT_FAIL_OPEN:
                return True
            raise ServiceUnavailable(
                "Rate limiting is temporarily unavailable, so this request was not processed; retry shortly."
            ) from None
        if usage is None:
            return True
        setattr(request, _USAGE_ATTRIBUTE, usage)
        if usage.exceeded:
            if usage.first_refusal:
                _record(subject, endpoint, usage, view)
            raise RateLimitExceeded(subject=subject, endpoint=endpoint, usage=usage)
        return True


def _record(subject: Subject, endpoint: str, usage: Usage, view: APIView) -> None:
    window_start, window_end = usage.window()
    merchant_account_id = subject.merchant_account_id
    account_of_view = getattr(view, "rate_limit_merchant_account_id", None)
    if merchant_account_id is None and account_of_view is not None:
        # A view that resolves no account before its body (Secure Fields) names it here, once per window.
        merchant_account_id = account_of_view()
    rate_limit_event_record(
        subject_kind=subject.kind,
        subject=subject.key,
        endpoint=endpoint,
        rate=usage.rate,
        window_start=window_start,
        window_end=window_end,
        merchant_account_id=merchant_account_id,
        label=subject.label,
    )


def _merchant_account_id(request: Request) -> str | None:
    account = getattr(request, "merchant_account", None)  # set by MerchantAccountAccess when the view uses it
    return account.pk if account is not None else None


class EmbedTokenThrottle(RateLimitThrottle):
    """Per embed token (its `jti`, or a hash of the token), with a separate budget on each endpoint."""

    rate_setting = "RATELIMIT_EMBED"
    scope = "embed"

    def subject(self, request: Request, view: APIView) -> Subject | None:
        principal = request.user
        if not isinstance(principal, ApiPrincipal) or not principal.is_embed:
            return None
        return Subject(
            kind="embed_token",
            # A jti is chosen by the signer, so two merchants' keys could pick the same one: the kid keeps them apart.
            key=f"{principal.kid}:{principal.token_id}",
            description="embed token",
            label=principal.token_id,
            merchant_account_id=_merchant_account_id(request) or principal.sole_merchant_account_id,
        )


class UrlParameterThrottle(RateLimitThrottle):
    """Per value of one URL parameter (`url_kwarg`), whatever token is sent or none; the methods a view limits
    share one budget.

    For endpoints where the URL itself is the credential. The one exemption is the rule every limit shares:
    a valid server-to-server token is never limited. Subclasses set `url_kwarg`, `subject_kind` and
    `description`, besides the rate setting and scope.
    """

    url_kwarg: str
    subject_kind: str
    description: str

    def endpoint(self, request: Request, view: APIView) -> str:
        # One name, so one budget, for every method the view limits: `PUT/POST /checkout/sessions/{session_id}/fields`.
        methods = "/".join(method.upper() for method in getattr(view, "rate_limits", {}))
        return f"{methods or request.method} {endpoint_name(request, with_method=False)}"

    def subject(self, request: Request, view: APIView) -> Subject | None:
        value = str(view.kwargs.get(self.url_kwarg, ""))
        if not value or _is_server_to_server(request):
            return None
        return Subject(
            kind=self.subject_kind,
            key=value,
            description=self.description,
            label=value,
            merchant_account_id=_merchant_account_id(request),
        )


def _is_server_to_server(request: Request) -> bool:
    """A valid bearer token without `embed`; checked here too because Secure Fields itself needs no token."""
    # None without a token (UNAUTHENTICATED_USER is None), which the stubs' Django-user type leaves out.
    principal: object = request.user
    if principal is None and request.META.get("HTTP_AUTHORIZATION"):
        try:
            authenticated = ApiKeyJWTAuthentication().authenticate(request)
        except AuthenticationFailed:
            authenticated = None
        principal = authenticated[0] if authenticated else None
    return isinstance(principal, ApiPrincipal) and not principal.is_embed


class RateLimitedMixin(_ViewBase):
    """For a view with limited actions: `rate_limits = {"create": (EmbedTokenThrottle,)}`.

    Keys are viewset actions (or lower-case HTTP methods on a plain APIView). Every response of a limited
    action that was counted, successful or not, carries RateLimit-Limit, -Remaining and -Reset.
    """

    rate_limits: Mapping[str, Sequence[type[BaseThrottle]]] = {}

    def get_throttles(self) -> list[BaseThrottle]:
        handler = getattr(self, "action", None) or (self.request.method or "").lower()
        return [*super().get_throttles(), *(throttle() for throttle in self.rate_limits.get(handler, ()))]

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        usage = getattr(request, _USAGE_ATTRIBUTE, None)
        if usage is not None:
            for name, value in usage.headers().items():
                response[name] = value
        return response
