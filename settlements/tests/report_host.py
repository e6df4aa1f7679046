"""The suite's own stand-in for Adyen's report download host. Where Adyen serves report files (its Customer Area
hosts) and how a download answers is in none of the documents the project derives contracts from, so no published
contract can be served here: this small HTTP server, run in a thread, answers a GET of a file it was given with the
file, when the request carries the report user's key in `X-API-Key`; 401 without it, 404 for another path. It records
each request, so a test can tell that nothing was sent."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class ReportHost:
    url: str
    api_key: str
    files: dict[str, bytes] = field(default_factory=dict)
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    # A status to answer every request with instead (a host that fails), or None.
    failing_with: int | None = None

    def file_url(self, name: str) -> str:
        return f"{self.url}/reports/download/MerchantAccount/TestMerchantECOM/{name}"


@contextmanager
def report_host(api_key: str) -> Iterator[ReportHost]:
    host = ReportHost(url="", api_key=api_key)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            host.requests.append((self.path, self.headers.get("X-API-Key")))
            name = self.path.rsplit("/", 1)[-1]
            prefix = "/reports/download/MerchantAccount/TestMerchantECOM/"
            if host.failing_with is not None:
                self._answer(host.failing_with, b"")
            elif self.headers.get("X-API-Key") != host.api_key:
                self._answer(401, b"")
            elif not self.path.startswith(prefix) or name not in host.files:
                self._answer(404, b"")
            else:
                self._answer(200, host.files[name])

        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/csv")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    host.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield host
    finally:
        server.shutdown()
        server.server_close()
