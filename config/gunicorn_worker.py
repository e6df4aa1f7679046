"""gunicorn's threaded worker, with two changes the API needs (`worker_class` in config/gunicorn.conf.py).

1. Errors gunicorn answers itself use the API's JSON envelope. A request gunicorn cannot parse (a request line
   or header over its limits, a NUL byte in a header, a malformed chunk, a transfer coding it does not know)
   never reaches Django; gunicorn writes an HTML page of its own, which the official client cannot read as
   an error. Here the same statuses come back as the envelope, with a message that names what to fix, and the
   log line names the kind of error, never the request line or a header (they can carry a checkout session
   id or a token).
2. A request runs for a bounded time. The threaded worker's heartbeat comes from its main loop, so a request
   stuck in a thread would never make gunicorn's `timeout` fire. Here the heartbeat stops while any request
   has run for longer than `timeout`: gunicorn then replaces the worker `timeout` seconds later. So no request
   runs for more than twice `timeout` (plus a second or two), the bound the idempotency lease relies on
   (docs/reliability.md).
"""

from __future__ import annotations

import json
import ssl
import threading
import time
import uuid
from http import HTTPStatus

from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers.gthread import ThreadWorker

# Checked in order, so the application's own header faults (subclasses of InvalidHeader) stay 500s.
_ANSWERS: tuple[tuple[tuple[type[BaseException], ...], int, str], ...] = (
    (
        (errors.InvalidResponseHeader, errors.InvalidResponseHeaderName, errors.ConfigurationProblem),
        500,
        "Request could not be processed",
    ),
    ((errors.LimitRequestLine,), 414, "The request line (method, path and query string) is too long."),
    ((errors.LimitRequestHeaders,), 431, "The request headers are too large, or there are too many of them."),
    (
        (errors.InvalidHeader, errors.InvalidHeaderName, errors.ObsoleteFolding),
        400,
        "A request header is malformed: names and values may not contain control characters such as NUL.",
    ),
    ((errors.InvalidRequestLine,), 400, "The request line is malformed."),
    ((errors.InvalidRequestMethod,), 400, "The request method is not valid."),
    ((errors.InvalidHTTPVersion,), 400, "The HTTP version is not supported."),
    (
        (errors.InvalidChunkSize, errors.ChunkMissingTerminator, errors.InvalidChunkExtension),
        400,
        "The chunked request body is malformed.",
    ),
    ((errors.UnsupportedTransferCoding,), 501, "Only the chunked transfer coding is supported."),
    ((errors.ExpectationFailed,), 417, "Only 'Expect: 100-continue' is supported."),
    ((errors.ForbiddenProxyRequest, ssl.SSLError), 403, "Access to this resource is not allowed"),
    ((errors.ParseException,), 400, "The request could not be read as HTTP/1.1."),
)


def error_answer(exc: BaseException) -> tuple[int, str]:
    """The status and message for an error gunicorn met before the application could answer."""
    for kinds, status, message in _ANSWERS:
        if isinstance(exc, kinds):
            return status, message
    return 500, "Request could not be processed"


def error_bytes(status: int, message: str, request_id: str) -> bytes:
    """A whole HTTP/1.1 response carrying the envelope; the connection is closed after it."""
    # Imported here: gunicorn loads the worker class before the application has set Django up.
    from payments.rest.envelope import envelope

    body = json.dumps(envelope(status, message), separators=(",", ":")).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"X-Request-Id: {request_id}\r\n"
        "\r\n"
    )
    return head.encode("latin-1") + body


class EnvelopeThreadWorker(ThreadWorker):
    """The gthread worker, answering its own errors with the JSON envelope and bounding each request's time."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._running_since: dict[int, float] = {}
        self._running_lock = threading.Lock()
        self._overdue_reported = False

    def handle_error(self, req, client, addr, exc) -> None:
        status, message = error_answer(exc)
        request_id = uuid.uuid4().hex
        ip = (addr or ("-",))[0]
        if status >= 500:
            self.log.error("Error handling request [%s]: %s", request_id, type(exc).__name__, exc_info=exc)
        else:
            self.log.warning(
                "Invalid request from ip=%s [%s]: %s, answered %s", ip, request_id, type(exc).__name__, status
            )
        try:
            util.write_nonblock(client, error_bytes(status, message, request_id))
        except Exception:  # the client may be gone already; nothing more to tell it
            self.log.debug("Failed to send error message.")

    def handle_request(self, req, conn):
        key = threading.get_ident()
        with self._running_lock:
            self._running_since[key] = time.monotonic()
        try:
            return super().handle_request(req, conn)
        finally:
            with self._running_lock:
                self._running_since.pop(key, None)

    def notify(self) -> None:
        if self._overdue():
            return  # no heartbeat: gunicorn replaces this worker once `timeout` has passed
        super().notify()

    def _overdue(self) -> bool:
        limit = self.cfg.timeout
        if not limit:
            return False
        with self._running_lock:
            oldest = min(self._running_since.values(), default=None)
        if oldest is None or time.monotonic() - oldest <= limit:
            return False
        if not self._overdue_reported:
            self._overdue_reported = True
            self.log.error("A request has run for more than %ss; this worker will be replaced.", limit)
        return True
