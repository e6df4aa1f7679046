"""Processor doubles for the connector tests, each a real process started once per test session: localstripe (a fake
Stripe) and Prism serving the contract of Adyen's API document (tests/adyen_mock.py)."""

import socket
import threading
from collections.abc import Iterator

import pytest

from paymentservices import notifications
from paymentservices.processors.tests.overrides import override_processor
from tests.adyen_mock import AdyenMock, AdyenTransport, prism_adyen
from tests.servers import FakeStripe, localstripe


@pytest.fixture(scope="session")
def fake_stripe() -> Iterator[FakeStripe]:
    with localstripe() as fake:
        yield fake


@pytest.fixture
def stripe_api(fake_stripe, settings) -> FakeStripe:
    """Point the stripe-card connector at the fake."""
    override_processor(settings, "stripe", API_BASE=fake_stripe.url, TIMEOUT_SECONDS=5)
    return fake_stripe


@pytest.fixture(scope="session")
def adyen_prism() -> Iterator[AdyenMock]:
    with prism_adyen() as mock:
        yield mock


@pytest.fixture
def adyen_mock(adyen_prism, settings, monkeypatch) -> Iterator[AdyenMock]:
    """Point the adyen-card connector at the validating mock, through a transport that names each simulated answer;
    afterwards, every request the library sent must have been valid by Adyen's document."""
    override_processor(settings, "adyen", API_BASE=adyen_prism.url, TIMEOUT_SECONDS=5)
    adyen_prism.reset()
    monkeypatch.setattr("Adyen.client.HTTPClient", AdyenTransport)
    monkeypatch.setattr(AdyenTransport, "mock", adyen_prism)
    yield adyen_prism
    assert adyen_prism.violations() == []


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
