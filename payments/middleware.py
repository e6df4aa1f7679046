"""Request ids, body size limits, and the last line of defence for the error envelope."""

import logging
import re
import threading
import uuid

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.core.signals import request_finished
from django.http import Http404, HttpRequest, HttpResponse

from payments.errors import error_response

logger = logging.getLogger("payments.request")

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
# Human-facing pages that keep Django's own HTML errors.
_HTML_PREFIXES = ("/admin/", "/docs/")

# Exceptions Django itself turns into 4xx responses: they are not failures of ours.
_HANDLED_BY_DJANGO = (Http404, PermissionDenied, SuspiciousOperation, BadRequest)
# Headers of a non-JSON error response that still mean something once it is wrapped in the envelope.
_KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")

_current = threading.local()


def current_request_id() -> str:
    return getattr(_current, "request_id", "-")


class RequestIdLogFilter(logging.Filter):
    """Adds `request_id` to every log record so a line can be tied to the response that caused it."""

    def filter(self, record: logging.LogRecord) -> bool:
        # Django's `django.request` and `django.security` records carry the request itself: use its id.
        request = getattr(record, "request", None)
        record.request_id = getattr(request, "id", None) or current_request_id()
        return True


def _forget_request_id(**kwargs) -> None:
    _current.request_id = "-"


# Cleared when the server closes the response, not when the middleware returns: Django logs 4xx and
# 5xx responses (`django.request`) after the whole middleware chain has finished.
request_finished.connect(_forget_request_id, dispatch_uid="payments.middleware.forget_request_id")


class RequestIdMiddleware:
    """Accept a sane incoming `X-Request-Id` or make one, and echo it on the response."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-Id", "")
        request.id = incoming if _REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex
        _current.request_id = request.id
        response = self.get_response(request)
        response["X-Request-Id"] = request.id
        return response


class BodySizeLimitMiddleware:
    """Refuse oversized bodies up front: DRF streams the body, so Django's own limit never applies."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_response(400, "Content-Length header is not a number.")
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and length > limit:
            return error_response(413, f"Request body is larger than {limit} bytes.")
        return self.get_response(request)


class ErrorEnvelopeMiddleware:
    """Whatever fails below this point answers with the JSON envelope, never HTML or a traceback."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code >= 400 and not self._is_json(response) and not request.path.startswith(_HTML_PREFIXES):
            enveloped = error_response(response.status_code)
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
            request.path,
            exc_info=exception,
            extra={"request_id": getattr(request, "id", "-")},
        )
        return error_response(500)

    @staticmethod
    def _is_json(response: HttpResponse) -> bool:
        return response.get("Content-Type", "").startswith("application/json")
