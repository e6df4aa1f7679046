"""Request body limits, enforced before any view reads a byte."""

from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from payments.middleware import GetResponse
from payments.rest.envelope import error_response


class BodySizeLimitMiddleware:
    """Refuse oversized bodies up front: DRF streams the body, so Django's own limit never applies."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_response(400, "Content-Length header is not a number.")
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and length > limit:
            return error_response(413, f"Request body is larger than {limit} bytes.")
        return self.get_response(request)
