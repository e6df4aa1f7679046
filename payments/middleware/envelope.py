"""The last line of defence for the error envelope: no URL answers with an HTML error page or a traceback."""

import logging

from django.core.exceptions import BadRequest, DisallowedHost, PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

from payments.errors import detail
from payments.middleware import GetResponse
from payments.middleware.routes import loggable_route
from payments.rest.envelope import error_response

logger = logging.getLogger("payments.request")

# Human-facing pages that keep Django's own HTML errors.
_HTML_PREFIXES = ("/admin/", "/docs/")
# Set on a response by a page for people that renders its own errors (a 3-D Secure challenge page): kept as it is.
OWN_ERROR_PAGE = "own_error_page"
# Exceptions Django itself turns into 4xx responses: they are not failures of ours.
_HANDLED_BY_DJANGO = (Http404, PermissionDenied, SuspiciousOperation, BadRequest)
# Headers of a non-JSON error response that still mean something once it is wrapped in the envelope.
_KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


class ErrorEnvelopeMiddleware:
    """Whatever fails below this point answers with the JSON envelope, never HTML or a traceback."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and not self._is_json(response)
            and not request.path.startswith(_HTML_PREFIXES)
            and not getattr(response, OWN_ERROR_PAGE, False)
        ):
            enveloped = _refused_host(request) if response.status_code == 400 else None
            enveloped = enveloped or error_response(response.status_code)
            for header in _KEPT_HEADERS:
                if header in response:
                    enveloped[header] = response[header]
            return enveloped
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, _HANDLED_BY_DJANGO):
            return None  # Django answers 400/403/404 for these; __call__ then wraps that in the envelope
        logger.error(
            "Unhandled error on %s %s",
            request.method,
            loggable_route(request),
            exc_info=exception,
            extra={"request_id": getattr(request, "id", "-")},
        )
        return error_response(500)

    @staticmethod
    def _is_json(response: HttpResponseBase) -> bool:
        return response.get("Content-Type", "").startswith("application/json")


def _refused_host(request: HttpRequest) -> HttpResponse | None:
    """The 400 Django gives a Host outside DJANGO_ALLOWED_HOSTS, saying so by name: an operator whose probe or proxy
    uses another address than the site's name reads the setting to change, not a bare "failed validation"."""
    try:
        request.get_host()
    except DisallowedHost:
        host = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
        message = f"Host {host[:255]!r} is not in DJANGO_ALLOWED_HOSTS"
        return error_response(400, message, [detail("header", "/host", message, "disallowed_host")])
    return None
