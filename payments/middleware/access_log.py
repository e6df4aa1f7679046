"""One log line per request, with what an operator needs to find it again and nothing secret.

Fields: request id, merchant account, method, route template (`/buyers/{buyer_id}`, never the raw
path, which can carry identifiers), status, duration in milliseconds, the signing key's `kid` and the client's address.
Never the token, the query string, a header or a body.
"""

import logging
import time

from django.http import HttpRequest
from django.http.response import HttpResponseBase

from payments.middleware import GetResponse
from payments.middleware.routes import request_route
from payments.rest.authentication import ApiPrincipal

logger = logging.getLogger("payments.access")


def _merchant_account_id(response: HttpResponseBase) -> str | None:
    # The account is resolved by DRF's permission on DRF's own request object, which the response carries.
    drf_request = getattr(response, "renderer_context", {}).get("request")
    account = getattr(drf_request, "merchant_account", None)
    return getattr(account, "id", None)


def _kid(request: HttpRequest) -> str | None:
    # `type()`, not `isinstance()`: the latter would evaluate Django's lazy session user (a query) on
    # requests that never authenticated with a token.
    user = getattr(request, "user", None)
    return user.kid if type(user) is ApiPrincipal else None


class AccessLogMiddleware:
    """Log each request once, after the response (including error envelopes) is final."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response = self.get_response(request)
        if logger.isEnabledFor(logging.INFO):
            fields = request_fields(request, response, duration_ms=(time.perf_counter() - started) * 1000)
            message_args = {**fields, "route": fields["route"] or "-"}
            logger.info("%(method)s %(route)s %(status)s %(duration_ms).1fms", message_args, extra=fields)
        return response


def request_fields(request: HttpRequest, response: HttpResponseBase, *, duration_ms: float) -> dict[str, object]:
    """The access log's fields for one finished request."""
    return {
        "request_id": getattr(request, "id", None),
        "merchant_account": _merchant_account_id(response),
        "method": request.method,
        "route": request_route(request),
        "status": response.status_code,
        "duration_ms": round(duration_ms, 2),
        "kid": _kid(request),
        # Behind the proxy, the address it names when it is trusted (payments/middleware/proxy.py).
        "client_address": request.META.get("REMOTE_ADDR"),
    }
