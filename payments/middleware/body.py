"""Request body limits, enforced before any view reads a byte, whatever way the body is framed.

A body comes with a `Content-Length` or chunked (`Transfer-Encoding: chunked`). Django reads only as many bytes
as `Content-Length` says, so a chunked body would reach the views as no body at all: a `POST /buyers` would make
an empty buyer, and a body of any size would pass the limit unread. Here a chunked body is read (never more than
the limit allows) and handed on as if it had come with its length; one the server cannot hand over whole is
refused.
"""

from io import BytesIO

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
        limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if _is_chunked(request):
            refusal = _read_chunked_body(request, limit)
            if refusal is not None:
                return refusal
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_response(400, "Content-Length header is not a number.")
        if limit is not None and length > limit:
            return error_response(413, f"Request body is larger than {limit} bytes.")
        return self.get_response(request)


def _is_chunked(request: HttpRequest) -> bool:
    codings = [part.strip().lower() for part in request.META.get("HTTP_TRANSFER_ENCODING", "").split(",")]
    return "chunked" in codings


def _read_chunked_body(request: HttpRequest, limit: int | None) -> HttpResponseBase | None:
    """Read the chunked body into the request, as if it had come with a `Content-Length`; or say why not."""
    stream = request.META.get("wsgi.input")  # META is the WSGI environ
    # A server that decodes chunked framing says so (PEP 3333's `wsgi.input_terminated`: gunicorn does); from
    # any other the stream is raw framing, or would block at its end, so the client must send a length.
    if stream is None or not request.META.get("wsgi.input_terminated"):
        return error_response(411, "Chunked request bodies are not supported here; send a Content-Length.")
    try:
        body = stream.read(-1 if limit is None else limit + 1)
    except Exception:  # the server's reader raises its own errors (gunicorn: InvalidChunkSize) for bad framing
        return error_response(400, "The chunked request body is malformed or incomplete.")
    if limit is not None and len(body) > limit:
        return error_response(413, f"Request body is larger than {limit} bytes.")
    request.META["CONTENT_LENGTH"] = str(len(body))
    # What Django builds from a Content-Length at the start of a request: the views now read this body.
    request._stream = BytesIO(body)
    return None
