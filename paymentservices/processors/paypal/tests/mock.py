"""A mock of PayPal's REST API for the `paypal-paypal` connector: Prism, as real processes in validating mode, serving
the project's contracts of PayPal's Orders v2, Payments v2, Notifications v1, Customer Disputes v1 and Transaction
Search documents (contracts/paypal/), so every request the official library (`paypal-server-sdk`) sends is checked
against PayPal's schemas; a request the real PayPal would refuse shows up as a violation (Prism's `sl-violations`
header, kept with each exchange). A multipart request (Disputes v1's answers) is kept as its parts (`_body`).

The library calls one host for both documents, so a small front of the suite's own takes every call and hands it to
the Prism of the document that holds its path. Two things are the suite's own, not Prism's:

- PayPal's OAuth token call (`POST /v1/oauth2/token`) is in neither document: the front answers it itself (a bearer
  token for any client whose Basic credentials are given, 401 `invalid_client` for the client id `REFUSED_CLIENT`).
- The contracts hold PayPal's schemas and no examples, and Prism's answers are static: the answers a flow needs (an
  order whose id the return must match, its approve link, its authorization, a capture and a refund, PayPal's error
  bodies) are added here as named examples (`ANSWERS`, `ERRORS`); only answers are added, the request schemas are
  the contracts' untouched. A test names the answer it simulates per path (`mock.answer(pattern, example=...)`),
  which the front asks of Prism with its `Prefer` header. An error status (`code=`) is answered by the front with
  `ERRORS` once Prism has validated the request: Prism's `Prefer: code=422` breaks the contracts' pattern for
  PayPal's own `Prefer` header.
- PayPal signs its notifications with its certificate and answers `verify-webhook-signature` from it. The double's
  signature (`signed_headers`) is an HMAC of its own over the same facts (transmission id and time, the webhook's id,
  a CRC-32 of the event), and once Prism has validated the verification request the front answers SUCCESS only when
  it matches: an event changed after signing, or signed for another webhook, is a FAILURE.
"""

from __future__ import annotations

import argparse
import base64
import copy
import email.parser
import email.policy
import fnmatch
import hashlib
import hmac
import json
import signal
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

import contracts
from tests.prism import NOT_INSTALLED, PRISM, prism_wait, start_prism
from tests.processes import free_port, stop_process

DOCUMENTS = {
    "/v2/checkout/": contracts.PAYPAL_ORDERS,
    "/v2/payments/": contracts.PAYPAL_PAYMENTS,
    "/v1/notifications/": contracts.PAYPAL_WEBHOOKS,
    "/v1/customer/disputes/": contracts.PAYPAL_DISPUTES,
    "/v1/reporting/": contracts.PAYPAL_TRANSACTIONS,
}

# The ids of the answers below (PayPal's are 17 upper-case letters and digits).
ORDER_ID = "5O190127TN364715T"
AUTHORIZATION_ID = "0VF52814937998046"
CAPTURE_ID = "2GG279541U471931P"
REFUND_ID = "1JU08902781691411"
# A payment of another's in the account's Transaction Search (no payment here names it).
FOREIGN_ID = "9XY12345AB6789012"
# What PayPal's Transaction Search says of the capture and the refund: its fee taken on the first, partly given back.
SEARCH_FEE = "-0.59"
REFUND_FEE = "0.07"
PAYER_EMAIL = "buyer@example.com"
APPROVAL_PAGE = "https://www.sandbox.paypal.com/checkoutnow"
APPROVE_LINK = f"{APPROVAL_PAGE}?token={ORDER_ID}"
PAYER_ID = "QYR5Z8XDVJNXQ"
REFUSED_CLIENT = "refusedclient"
# The webhook the suite's notifications are sent to, and the key the double signs them with (PayPal signs with its
# certificate's key; the double's signature is an HMAC over what PayPal's covers: the transmission id and time, the
# webhook's id and a CRC-32 of the event).
WEBHOOK_ID = "8PT597110X687430LKGECATA"
SIGNING_KEY = b"the double's signing key"
VERIFY_PATH = "/v1/notifications/verify-webhook-signature"
ACCESS_TOKEN = "A21AAsimulatedaccesstoken"


def _money(value: str = "10.00") -> dict[str, str]:
    return {"currency_code": "USD", "value": value}


def _authorized_order(status: str) -> dict[str, Any]:
    return {
        "id": ORDER_ID,
        "status": "COMPLETED",
        "intent": "AUTHORIZE",
        "payment_source": {"paypal": {"email_address": PAYER_EMAIL, "account_id": "QYR5Z8XDVJNXQ"}},
        "purchase_units": [
            {
                "reference_id": "default",
                "payments": {"authorizations": [{"id": AUTHORIZATION_ID, "status": status, "amount": _money()}]},
            }
        ],
    }


_ORDER_LINKS = [
    {"href": APPROVE_LINK, "rel": "payer-action", "method": "GET"},
    {"href": f"https://api-m.sandbox.paypal.com/v2/checkout/orders/{ORDER_ID}", "rel": "self", "method": "GET"},
]


def _search_line(code: str, own: str, value: str, fee: str, **more: str) -> dict[str, Any]:
    info = {
        "transaction_id": own,
        "transaction_event_code": code,
        "transaction_initiation_date": "2026-01-05T10:00:00Z",
        "transaction_amount": _money(value),
        "fee_amount": _money(fee),
        "transaction_status": "S",
        **more,
    }
    return {"transaction_info": info}


_CAPTURED_LINE = _search_line("T0006", CAPTURE_ID, "10.00", SEARCH_FEE)
_REFUND_LINE = _search_line("T1107", REFUND_ID, "-2.50", REFUND_FEE, paypal_reference_id=CAPTURE_ID)
_FOREIGN_LINE = _search_line("T0006", FOREIGN_ID, "4.00", "-0.42")


def _search_page(lines: list[dict[str, Any]], *, page: int = 1, pages: int = 1, refreshed: str = "") -> dict[str, Any]:
    """A page of Transaction Search's answer; PayPal's records complete to `refreshed` (by default far ahead, so a
    window is never cut short by it)."""
    answer: dict[str, Any] = {
        "account_number": "QYR5Z8XDVJNXQ",
        "start_date": "2026-01-01T00:00:00Z",
        "end_date": "2026-01-31T00:00:00Z",
        "last_refreshed_datetime": refreshed or "2099-12-31T23:59:59Z",
        "page": page,
        "total_items": len(lines),
        "total_pages": pages,
    }
    return {**answer, "transaction_details": lines} if lines else answer


# Named answers by (path, method), for each of its 2xx statuses. Static: Prism does not echo the request, so an
# amount here is its own.
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("/v2/checkout/orders", "post"): {
        "opened": {"id": ORDER_ID, "status": "PAYER_ACTION_REQUIRED", "intent": "AUTHORIZE", "links": _ORDER_LINKS},
        "nolink": {"id": ORDER_ID, "status": "CREATED", "intent": "AUTHORIZE", "links": []},
        "foreignlink": {
            "id": ORDER_ID,
            "status": "PAYER_ACTION_REQUIRED",
            "links": [{"href": "https://paypal.com.evil.example/checkoutnow", "rel": "payer-action", "method": "GET"}],
        },
    },
    ("/v2/checkout/orders/{id}/authorize", "post"): {
        "authorized": _authorized_order("CREATED"),
        "denied": _authorized_order("DENIED"),
        "pending": _authorized_order("PENDING"),
    },
    ("/v2/checkout/orders/{id}", "get"): {
        "created": {"id": ORDER_ID, "status": "PAYER_ACTION_REQUIRED", "links": _ORDER_LINKS},
        "approved": {"id": ORDER_ID, "status": "APPROVED"},
        "authorized": _authorized_order("CREATED"),
        "pending": _authorized_order("PENDING"),
    },
    ("/v2/payments/authorizations/{authorization_id}/capture", "post"): {
        "completed": {"id": CAPTURE_ID, "status": "COMPLETED", "amount": _money("6.00"), "final_capture": True},
        "declined": {
            "id": CAPTURE_ID,
            "status": "DECLINED",
            "status_details": {"reason": "DECLINED_BY_RISK_FRAUD_FILTERS"},
        },
    },
    ("/v2/payments/authorizations/{authorization_id}/void", "post"): {
        "voided": {"id": AUTHORIZATION_ID, "status": "VOIDED", "amount": _money()},
    },
    (VERIFY_PATH, "post"): {"verified": {"verification_status": "SUCCESS"}},
    ("/v2/payments/captures/{capture_id}/refund", "post"): {
        "completed": {"id": REFUND_ID, "status": "COMPLETED", "amount": _money("2.50")},
    },
    ("/v1/reporting/transactions", "get"): {
        "settled": _search_page([_CAPTURED_LINE, _REFUND_LINE, _FOREIGN_LINE]),
        "first": _search_page([_CAPTURED_LINE], pages=2),
        "second": _search_page([_REFUND_LINE], page=2, pages=2),
        "none": _search_page([]),
        "lagging": _search_page([_CAPTURED_LINE], refreshed="2000-01-01T00:00:00Z"),
    },
}

# What every operation answers for each error status it declares with a body, in PayPal's error shape.
ERRORS: dict[str, dict[str, Any]] = {
    "400": {
        "name": "INVALID_REQUEST",
        "message": "Request is not well-formed.",
        "debug_id": "b1a3c5d7e9f01",
        "details": [{"issue": "INVALID_PARAMETER_VALUE", "description": "A value is invalid."}],
    },
    "401": {
        "name": "AUTHENTICATION_FAILURE",
        "message": "The access token is not valid.",
        "debug_id": "b1a3c5d7e9f05",
    },
    "404": {
        "name": "RESOURCE_NOT_FOUND",
        "message": "The specified resource does not exist.",
        "debug_id": "b1a3c5d7e9f02",
        "details": [{"issue": "INVALID_RESOURCE_ID", "description": "Not found."}],
    },
    "422": {
        "name": "UNPROCESSABLE_ENTITY",
        "message": "The requested action could not be performed.",
        "debug_id": "b1a3c5d7e9f03",
        "details": [{"issue": "INSTRUMENT_DECLINED", "description": "The instrument presented was declined."}],
    },
    "500": {
        "name": "INTERNAL_SERVER_ERROR",
        "message": "An internal server error occurred.",
        "debug_id": "b1a3c5d7e9f04",
    },
}


def mock_document(document: Path) -> dict[str, Any]:
    """A PayPal contract with the mock's own answers added (request schemas untouched)."""
    contract: dict[str, Any] = json.loads(document.read_text())
    requests_before = copy.deepcopy(
        {
            path: {m: op.get("requestBody") for m, op in item.items() if isinstance(op, dict)}
            for path, item in contract["paths"].items()
        }
    )
    for (path, method), answers in ANSWERS.items():
        if path not in contract["paths"]:
            continue
        for status, response in contract["paths"][path][method]["responses"].items():
            media = response.get("content", {}).get("application/json")
            if status.startswith("2") and media is not None:
                media.setdefault("examples", {}).update({name: {"value": body} for name, body in answers.items()})
    for item in contract["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for status, response in operation.get("responses", {}).items():
                media = response.get("content", {}).get("application/json")
                if status in ERRORS and media is not None:
                    media.setdefault("examples", {})["error"] = {"value": ERRORS[status]}
    assert requests_before == {
        path: {m: op.get("requestBody") for m, op in item.items() if isinstance(op, dict)}
        for path, item in contract["paths"].items()
    }
    return contract


def _event_digest(event: Any) -> int:
    """The CRC-32 of the event (as JSON with sorted keys: the server sends the event back parsed, not its bytes)."""
    return zlib.crc32(json.dumps(event, sort_keys=True, separators=(",", ":")).encode())


def _signature(transmission_id: str, transmission_time: str, webhook_id: str, event: Any) -> str:
    signed = f"{transmission_id}|{transmission_time}|{webhook_id}|{_event_digest(event)}".encode()
    # Hex, so it starts with a word character as the document's pattern for `transmission_sig` wants (base64 may not).
    return hmac.new(SIGNING_KEY, signed, hashlib.sha256).hexdigest()


def signed_headers(event: Any, *, webhook_id: str = WEBHOOK_ID, transmission_id: str | None = None) -> dict[str, str]:
    """PayPal's transmission headers for `event` sent to the webhook `webhook_id`, signed as the double verifies."""
    transmission_id = transmission_id or f"t{uuid.uuid4().hex}"
    transmission_time = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {
        "PAYPAL-AUTH-ALGO": "SHA256withRSA",
        "PAYPAL-CERT-URL": "https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77",
        "PAYPAL-TRANSMISSION-ID": transmission_id,
        "PAYPAL-TRANSMISSION-SIG": _signature(transmission_id, transmission_time, webhook_id, event),
        "PAYPAL-TRANSMISSION-TIME": transmission_time,
    }


def _verdict(request: Any) -> dict[str, str]:
    """What the double answers `verify-webhook-signature`: SUCCESS only for the event signed for that webhook."""
    try:
        expected = _signature(
            request["transmission_id"], request["transmission_time"], request["webhook_id"], request["webhook_event"]
        )
        good = hmac.compare_digest(expected, str(request["transmission_sig"]))
    except (KeyError, TypeError):
        good = False
    return {"verification_status": "SUCCESS" if good else "FAILURE"}


@dataclass
class Exchange:
    method: str
    path: str
    status: int
    violations: str | None
    headers: dict[str, str]
    body: Any
    query: dict[str, str] = field(default_factory=dict)


@dataclass
class PayPalMock:
    """The front and its Prisms: `answer(pattern, example=..., code=...)` names what a path (a pattern of the
    request's path) answers until the next `reset`; `exchanges` keeps every call the front saw."""

    url: str
    prisms: dict[str, str]
    logs: list[IO[bytes]]
    answers: dict[str, str] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    dropped: set[str] = field(default_factory=set)
    exchanges: list[Exchange] = field(default_factory=list)
    # Standing in for the buyer's PayPal too (`python -m tests.mocks paypal`): orders send the buyer to the front's own
    # approval page, which approves at once and sends them back to the last order's return URL, as PayPal does.
    approves_here: bool = False
    last_return_url: str | None = None

    def answer(
        self, pattern: str, *, example: str | None = None, code: int | None = None, dropped: bool = False
    ) -> None:
        """`example`: Prism answers with that named answer. `code`: an error status; Prism still validates the
        request (its `Prefer: code=` would break the contract's own pattern for PayPal's `Prefer` header), and the
        front answers PayPal's error body of that status (`ERRORS`). `dropped`: Prism validates the request and the
        front closes the connection without an answer (PayPal got the request; its answer was lost)."""
        self.answers[pattern] = f"example={example}" if example else ""
        if code:
            self.errors[pattern] = code
        if dropped:
            self.dropped.add(pattern)

    def drops(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.dropped)

    def error(self, path: str) -> int | None:
        return next((code for pattern, code in self.errors.items() if fnmatch.fnmatchcase(path, pattern)), None)

    def reset(self) -> None:
        self.answers.clear()
        self.errors.clear()
        self.dropped.clear()
        self.exchanges.clear()

    def calls(self, method: str, pattern: str) -> list[Exchange]:
        return [e for e in self.exchanges if e.method == method and fnmatch.fnmatchcase(e.path, pattern)]

    def violations(self) -> list[str]:
        """Requests Prism found invalid by PayPal's contracts since the last reset (never expected). Its findings
        about the mock's own answers (an error example's `issue` another operation's enum lacks) are not the
        connector's."""
        return [
            f"{e.method} {e.path}: {e.violations}"
            for e in self.exchanges
            if e.violations and '"request"' in e.violations
        ]

    def prefer(self, path: str) -> str | None:
        return next((value for pattern, value in self.answers.items() if fnmatch.fnmatchcase(path, pattern)), None)


class _Front(BaseHTTPRequestHandler):
    mock: PayPalMock

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _token(self) -> None:
        """PayPal's token call, answered by the suite's double (it is in neither document)."""
        basic = self.headers.get("Authorization", "")
        client = ""
        if basic.startswith("Basic "):
            client = base64.b64decode(basic[6:]).decode(errors="replace").partition(":")[0]
        self.mock.exchanges.append(Exchange("POST", "/v1/oauth2/token", 200, None, dict(self.headers), None))
        if not client or client == REFUSED_CLIENT:
            body = {"error": "invalid_client", "error_description": "Client Authentication failed"}
            self._send(401, json.dumps(body).encode(), {"Content-Type": "application/json"})
            return
        token: dict[str, Any] = {
            "scope": "https://uri.paypal.com/services/payments/payment",
            "access_token": ACCESS_TOKEN,
            "token_type": "Bearer",
            "app_id": "APP-80W284485P519543T",
            "expires_in": 32400,
            "nonce": "simulated",
        }
        self._send(200, json.dumps(token).encode(), {"Content-Type": "application/json"})

    def _forward(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/v1/oauth2/token" and method == "POST":
            self._token()
            return
        prism = next((url for prefix, url in self.mock.prisms.items() if path.startswith(prefix)), None)
        data = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method != "GET" else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
        # A pattern may name the query too (`/v1/reporting/transactions?*page=2*`), for an answer per page.
        prefer = self.mock.prefer(self.path) or self.mock.prefer(path)
        if prefer:  # Prism's own (letters and '=' only, as the contract's pattern for PayPal's `Prefer` wants)
            headers["Prefer"] = prefer
        if prism is None:
            self._send(404, b"{}", {"Content-Type": "application/json"})
            return
        request = urllib.request.Request(prism + self.path, data=data, method=method, headers=headers)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - loopback
                status, body, answer_headers = answer.status, answer.read(), dict(answer.headers)
        except urllib.error.HTTPError as error:
            status, body, answer_headers = error.code, error.read(), dict(error.headers)
        sent = _body(data, self.headers.get("Content-Type", ""))
        query = dict(urllib.parse.parse_qsl(self.path.partition("?")[2]))
        self.mock.exchanges.append(
            Exchange(method, path, status, answer_headers.get("sl-violations"), dict(self.headers), sent, query)
        )
        if self.mock.drops(path):
            self.close_connection = True  # no status line, no body: the client's read ends with the connection
            return
        kept = {k: v for k, v in answer_headers.items() if k.lower() in ("content-type", "sl-violations")}
        error = self.mock.error(self.path) or self.mock.error(path)
        if error is not None and status < 300:  # the request was valid: the error the test asked for
            status, body = error, json.dumps(ERRORS[str(error)]).encode()
            self.mock.exchanges[-1].status = error
        elif path == VERIFY_PATH and status < 300:  # Prism checked the request; the signature decides the answer
            body = json.dumps(_verdict(sent)).encode()
        if self.mock.approves_here and method == "POST" and path == "/v2/checkout/orders" and status < 300:
            self.mock.last_return_url = sent["payment_source"]["paypal"]["experience_context"]["return_url"]
            body = body.replace(APPROVAL_PAGE.encode(), f"{self.mock.url}/checkoutnow".encode())
        self._send(status, body, kept)

    def _approve(self) -> None:
        """The buyer approves at once: back to where the last order asked, with PayPal's `token` and `PayerID`."""
        if self.mock.last_return_url is None:
            self._send(404, b"No order was opened.", {"Content-Type": "text/plain"})
            return
        separator = "&" if "?" in self.mock.last_return_url else "?"
        query = urllib.parse.urlencode({"token": ORDER_ID, "PayerID": PAYER_ID})
        self._send(302, b"", {"Location": f"{self.mock.last_return_url}{separator}{query}"})

    def do_GET(self) -> None:
        if self.mock.approves_here and self.path.startswith("/checkoutnow"):
            self._approve()
            return
        self._forward("GET")

    def do_POST(self) -> None:
        self._forward("POST")


def _body(data: bytes | None, content_type: str) -> Any:
    """What was sent: JSON parsed; a multipart body's parts by name, in order, each as (file name, media type,
    content: text for a part with no file name, bytes for a file)."""
    if not data:
        return None
    if not content_type.startswith("multipart/"):
        return json.loads(data)
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + data
    )
    parts = []
    for part in message.iter_parts():
        content = part.get_payload(decode=True) or b""
        name = part.get_filename()
        parts.append(
            (
                part.get_param("name", header="content-disposition"),
                name,
                part.get_content_type(),
                content if name else content.decode(),
            )
        )
    return parts


@contextmanager
def _prism(document: Path, directory: str) -> Iterator[tuple[str, IO[bytes]]]:
    port = free_port()
    served = Path(directory) / document.name
    served.write_text(json.dumps(mock_document(document)))
    with tempfile.TemporaryFile() as log:
        process = start_prism(served, port, log)
        url = f"http://127.0.0.1:{port}"
        try:
            prism_wait(url + "/v2/none", process, log)
            yield url, log
        finally:
            stop_process(process, grace=10)


@contextmanager
def paypal_mock(
    documents: dict[str, Path] = DOCUMENTS, *, port: int | None = None, approves_here: bool = False
) -> Iterator[PayPalMock]:
    """The front (on `port`, or a free one), and a Prism per document refusing requests that break it (`--errors`)."""
    if not PRISM.exists():
        raise RuntimeError(NOT_INSTALLED)
    with tempfile.TemporaryDirectory() as directory, ExitStack() as stack:
        prisms, logs = {}, []
        for prefix, document in documents.items():
            url, log = stack.enter_context(_prism(document, directory))
            prisms[prefix] = url
            logs.append(log)
        port = port or free_port()
        mock = PayPalMock(f"http://127.0.0.1:{port}", prisms, logs, approves_here=approves_here)
        handler = type("Front", (_Front,), {"mock": mock})
        server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield mock
        finally:
            server.shutdown()
            server.server_close()


# What docs/guides/paypal.md does: open an order, authorize it once approved, capture it, refund part, void another.
GUIDE_DOCUMENTS = {prefix: DOCUMENTS[prefix] for prefix in ("/v2/checkout/", "/v2/payments/")}
GUIDE_ANSWERS = {
    "/v2/checkout/orders": "opened",
    "/v2/checkout/orders/*/authorize": "authorized",
    "/v2/payments/authorizations/*/capture": "completed",
    "/v2/payments/authorizations/*/void": "voided",
    "/v2/payments/captures/*/refund": "completed",
}


def main() -> None:
    """`python -m tests.mocks paypal --port 8431`: the mock in the foreground, as docs/guides/paypal.md starts it.
    It is the buyer's PayPal too: an order's approval link approves at once."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8431)
    port = parser.parse_args().port
    if not PRISM.exists():
        raise SystemExit(NOT_INSTALLED)
    # Stopped as a reader stops it (Ctrl-C) or as a test does (SIGTERM): either way its Prisms stop with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with paypal_mock(GUIDE_DOCUMENTS, port=port, approves_here=True) as mock:
        for pattern, example in GUIDE_ANSWERS.items():
            mock.answer(pattern, example=example)
        print(f"PayPal mock listening on {mock.url}", flush=True)
        with suppress(KeyboardInterrupt):
            signal.pause()
