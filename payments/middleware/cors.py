"""Cross-origin access: a browser origin gets CORS headers only where a merchant account allows it.

django-cors-headers does the header work; with no global allow list it asks the `check_request_enabled`
signal, answered here. Whose `allowed_origins` apply:

- on paths an app claims with `register_account_resolver` (the Secure Fields endpoint, where the checkout
  session in the path is the credential): the account the resolver returns for that path;
- on every other path: the account the request acts for (`x-gr4vy-merchant-account-id`, absent: `default`);
- on a preflight to such a path, which carries no merchant account header: any account's origins. The
  preflight only lets the browser send the request; the response to the request itself is still checked
  against that request's account, and without CORS headers the page cannot read it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from corsheaders.signals import check_request_enabled
from django.dispatch import receiver
from django.http import HttpRequest

from payments.accounts.models import MerchantAccount
from payments.accounts.selectors import merchant_account_origins, merchant_account_requested

AccountResolver = Callable[[HttpRequest, re.Match[str]], MerchantAccount | None]

# Human-facing pages are same-origin only; no browser origin is ever allowed to read them.
_NEVER_CORS = ("/admin/",)

_resolvers: list[tuple[re.Pattern[str], AccountResolver]] = []


def register_account_resolver(path_pattern: str, resolver: AccountResolver) -> None:
    """Let `resolver` pick the account whose origins apply on paths that fully match `path_pattern`."""
    pattern = re.compile(path_pattern)
    _resolvers[:] = [entry for entry in _resolvers if entry[0].pattern != pattern.pattern]
    _resolvers.append((pattern, resolver))


def _is_preflight(request: HttpRequest) -> bool:
    return request.method == "OPTIONS" and "access-control-request-method" in request.headers


def origin_allowed(request: HttpRequest, origin: str) -> bool:
    """Whether `origin` may read the response to `request` (or, for a preflight, send it)."""
    path = request.path_info
    if path.startswith(_NEVER_CORS):
        return False
    for pattern, resolver in _resolvers:
        match = pattern.fullmatch(path)
        if match is not None:
            return _allows(resolver(request, match), origin)
    if _is_preflight(request):
        return origin in {_comparable(allowed) for allowed in merchant_account_origins()}
    return _allows(merchant_account_requested(request.META), origin)


def _comparable(origin: str) -> str:
    # Browsers send `scheme://host[:port]` in lower case without a trailing slash; configured values may differ.
    return origin.rstrip("/").lower()


def _allows(account: MerchantAccount | None, origin: str) -> bool:
    allowed = account.allowed_origins if account is not None and isinstance(account.allowed_origins, list) else []
    return origin in {_comparable(entry) for entry in allowed if isinstance(entry, str)}


@receiver(check_request_enabled, dispatch_uid="payments.middleware.cors.allow_configured_origins")
def allow_configured_origins(sender: object, request: HttpRequest, **kwargs: object) -> bool:
    """django-cors-headers asks this for each request with an `Origin` not in its (empty) global list."""
    origin = request.headers.get("origin")
    if not origin:
        return False
    return origin_allowed(request, origin)
