"""Fixtures of the payment service tests: the notifications handed to the handlers, and a listener counting the
connections a hostile setting would send. Each processor's own double is its folder's (`tests/mock.py`, its fixtures
in `tests/double.py`)."""

import socket
import threading
from collections.abc import Iterator

import pytest

from paymentservices import notifications


@pytest.fixture
def received() -> Iterator[list]:
    """The events the notification handlers were given, in order."""
    events: list = []
    notifications.register(events.append)
    yield events
    notifications.unregister(events.append)


class Listener:
    """A TCP socket on 127.0.0.1 that accepts and counts every connection made to it (and answers nothing): where a
    hostile setting would send a processor's calls."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.1)
        self.port: int = self._socket.getsockname()[1]
        self.connections = 0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            connection.close()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()
        self._socket.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.stop()
