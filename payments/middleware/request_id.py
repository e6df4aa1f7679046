"""Request ids: accepted from `X-Request-Id` or made here, echoed on the response and stamped on every log line."""

import logging
import re
import threading
import uuid

from django.core.signals import request_finished
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from payments.middleware import GetResponse

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")

_current = threading.local()
# Stamped on Django's request, which declares no such attribute: set by name, read with getattr(request, "id", ...).
_ID_ATTRIBUTE = "id"


def current_request_id() -> str:
    request_id: str = getattr(_current, "request_id", "-")
    return request_id


class RequestIdLogFilter(logging.Filter):
    """Adds `request_id` to every log record so a line can be tied to the response that caused it."""

    def filter(self, record: logging.LogRecord) -> bool:
        # Django's `django.request` and `django.security` records carry the request itself: use its id.
        request = getattr(record, "request", None)
        record.request_id = getattr(request, "id", None) or current_request_id()
        return True


def _forget_request_id(**kwargs: object) -> None:
    _current.request_id = "-"


# Cleared when the server closes the response, not when the middleware returns: Django logs 4xx and
# 5xx responses (`django.request`) after the whole middleware chain has finished.
request_finished.connect(_forget_request_id, dispatch_uid="payments.middleware.request_id.forget")


class RequestIdMiddleware:
    """Accept a sane incoming `X-Request-Id` or make one, and echo it on the response."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        incoming = request.headers.get("X-Request-Id", "")
        request_id = incoming if _REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex
        setattr(request, _ID_ATTRIBUTE, request_id)
        _current.request_id = request_id
        response = self.get_response(request)
        response["X-Request-Id"] = request_id
        return response
