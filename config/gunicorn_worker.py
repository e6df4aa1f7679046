"""gunicorn's sync worker, answering the errors gunicorn meets itself with the API's JSON envelope
(`worker_class` in config/gunicorn.conf.py).

A request gunicorn cannot parse (a request line or header over its limits, a NUL byte in a header, a malformed
chunk, a transfer coding it does not know) never reaches Django; gunicorn writes an HTML page of its own, which
the official client cannot read as an error. Here the same statuses come back as the envelope, with a message
that names what to fix, and the log line names the kind of error, never the request line or a header (they can
carry a checkout session id or a token).

Why the sync worker (docs/deploy.md, "Workers"): a worker accepts a connection only when it is free, serves one
request on it and closes it, so requests wait in the listening socket's queue, which every worker takes from,
never behind a busy worker while another idles. Its heartbeat comes from the loop between requests, so
gunicorn's own `timeout` bounds every request (the bound the idempotency lease relies on, docs/reliability.md).
"""

from __future__ import annotations

import json
import ssl
import uuid
from http import HTTPStatus

from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers.sync import SyncWorker

# Checked in order, so the application's own header faults (subclasses of InvalidHeader) stay 500s.
_ANSWERS: tuple[tuple[tuple[type[BaseException], ...], int, str], ...] = (
    (
        (errors.InvalidResponseHeader, errors.InvalidResponseHeaderName, errors.ConfigurationProblem),
        500,
        "Request could not be processed",
    ),
    # gunicorn stops a request that runs past `timeout` by raising SystemExit in it, then replaces the worker.
    (
        (SystemExit,),
        500,
        "The request ran past the server's time limit; retry with the same Idempotency-Key to learn its outcome.",
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


class EnvelopeSyncWorker(SyncWorker):
    """The sync worker, answering its own errors with the JSON envelope."""

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
