"""Real gunicorn processes for the tests that need several processes or gunicorn's own HTTP handling.

A server runs on a free port of 127.0.0.1 with the test's environment; `stop()` (or leaving the `gunicorn`
context) stops it before the test database is flushed, so no worker holds a connection to it then.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING
from urllib.parse import quote

from tests.processes import ROOT, free_port, stop_process

if TYPE_CHECKING:
    from tests.logscan import LogScan

CONFIG = ROOT / "config" / "gunicorn.conf.py"


@dataclass
class Server:
    url: str
    port: int
    process: subprocess.Popen
    log: IO[bytes]

    def output(self) -> str:
        """Everything the master and its workers have logged so far."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def worker_pids(self) -> list[int]:
        """The master's live children: its workers."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return [int(pid) for pid in children]


def database_url(database: dict) -> str:
    """The URL of a Django database settings dict: the test database (not the configured one) for workers."""
    if database["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{database['NAME']}"
    password = f":{quote(database['PASSWORD'], safe='')}" if database["PASSWORD"] else ""
    user = quote(database["USER"], safe="")
    return f"postgres://{user}{password}@{database['HOST']}:{database['PORT'] or 5432}/{database['NAME']}"


@contextmanager
def gunicorn(env: dict[str, str], *, args: tuple[str, ...] = (), app: str = "config.wsgi") -> Iterator[Server]:
    """gunicorn with the project's config file (its worker class and limits), on a free loopback port, serving
    `app` (the project's WSGI module, or a test's wrapper of it)."""
    port = free_port()
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("GR4VY_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "LOG_LEVEL": "WARNING",
        # A test's server stops at its end: a connection a test left open (a refused request's) holds a sync worker
        # until the graceful timeout, which is 30 s in production and need not be here.
        "WEB_GRACEFUL_TIMEOUT_SECONDS": "3",
        **env,
    }
    command = [sys.executable, "-m", "gunicorn", app, "--config", str(CONFIG), *args]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
        server = Server(f"http://127.0.0.1:{port}", port, process, log)
        try:
            _wait_until_serving(server)
            yield server
        finally:
            stop_process(process)


@contextmanager
def runserver(env: dict[str, str], *, scan: LogScan) -> Iterator[Server]:
    """Django's development server, as `make run` starts it (without the autoreloader, so one process), on a free
    loopback port. Everything it logs joins the session's log scan (`scan`) when it stops."""
    port = free_port()
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("GR4VY_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **env,
    }
    command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
        server = Server(f"http://127.0.0.1:{port}", port, process, log)
        try:
            _wait_until_serving(server, name="runserver")
            yield server
        finally:
            stop_process(process)
            scan.add_lines(server.output().splitlines(), source="runserver")


def _wait_until_serving(server: Server, *, name: str = "gunicorn") -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"{name} exited: {server.output()[-2000:]}")
        try:
            with urllib.request.urlopen(server.url + "/healthz", timeout=2):  # noqa: S310 - loopback
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{name} did not start serving within 60 seconds")


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes


def raw_request(port: int, data: bytes, *, timeout: float = 30) -> RawResponse:
    """Send `data` as it is (no client library tidies it up) and read the answer until the server closes."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        # The server may answer (and close) before reading it all: its answer is still to be read.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.sendall(data)
        try:
            while chunk := connection.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass  # closed with unread bytes left: what arrived before is the answer
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = _dechunk(body)
    return RawResponse(int(status_line.split()[1]), headers, body)


def _dechunk(body: bytes) -> bytes:
    out = b""
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, body = out + rest[:size], rest[size + 2 :]
    return out
