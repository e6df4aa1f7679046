"""A real HTTP receiver on 127.0.0.1 for delivery tests: records what arrives, answers as told."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict[str, str]
    body: str
    at: float

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    """`behaviour`: "ok" (204), "500", "hang" (answers after `hang_seconds`), "close" (drops the connection),
    "block" (waits until `release` is set, then answers 200), "block-first" (the first request blocks like
    "block", every later one is "ok")."""

    url: str = ""
    behaviour: str = "ok"
    hang_seconds: float = 2.0
    received: list[Received] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    in_flight: dict[str, int] = field(default_factory=dict)
    max_in_flight: int = 0
    sending: int = 0  # requests being answered now, whatever their delivery
    max_sending: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bodies(self) -> list[dict]:
        return [item.json for item in self.received]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(length).decode()
            webhook_id = self.headers.get("X-Gr4vy-Webhook-Id", "")
            with receiver.lock:
                receiver.received.append(Received(dict(self.headers.items()), body, time.monotonic()))
                receiver.in_flight[webhook_id] = receiver.in_flight.get(webhook_id, 0) + 1
                receiver.max_in_flight = max(receiver.max_in_flight, receiver.in_flight[webhook_id])
                receiver.sending += 1
                receiver.max_sending = max(receiver.max_sending, receiver.sending)
            receiver.arrived.set()
            try:
                self._answer()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the sender gave up first (a timeout): expected here
            finally:
                with receiver.lock:
                    receiver.in_flight[webhook_id] -= 1
                    receiver.sending -= 1

        def _answer(self):
            behaviour = receiver.behaviour
            if behaviour == "block-first":
                behaviour = "block" if len(receiver.received) == 1 else "ok"
            if behaviour == "close":
                self.close_connection = True
                self.connection.close()
                return
            if behaviour == "hang":
                time.sleep(receiver.hang_seconds)
            if behaviour == "block":
                receiver.release.wait(30)
            status = 500 if behaviour == "500" else 204 if behaviour == "ok" else 200
            self.send_response(status)
            payload = b'{"error":"boom"}' if status == 500 else b""
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@contextmanager
def running_receiver(**options) -> Iterator[Receiver]:
    receiver = Receiver(**options)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    server.daemon_threads = True
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release.set()
        server.shutdown()
        server.server_close()
