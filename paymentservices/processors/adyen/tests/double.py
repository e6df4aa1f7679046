"""Adyen's test double for the whole suite: Prism serving the contract of Adyen's API document (mock.py)
started once per test session, and the fixture that points the adyen-card connector at it. Registered by the root
conftest.py, which walks the registry for each folder's `tests/double.py`."""

from collections.abc import Iterator

import pytest

from paymentservices.processors.adyen.tests.mock import (
    AdyenMock,
    AdyenTransport,
    prism_adyen,
    prism_adyen_disputes,
    prism_adyen_payout,
)
from paymentservices.processors.tests.overrides import override_processor


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
    monkeypatch.setattr("paymentservices.processors.adyen.http.SessionHTTPClient", AdyenTransport)
    monkeypatch.setattr(AdyenTransport, "mock", adyen_prism)
    yield adyen_prism
    assert adyen_prism.violations() == []


@pytest.fixture(scope="session")
def adyen_payout_prism() -> Iterator[AdyenMock]:
    with prism_adyen_payout() as mock:
        yield mock


@pytest.fixture(scope="session")
def adyen_disputes_prism() -> Iterator[AdyenMock]:
    with prism_adyen_disputes() as mock:
        yield mock


@pytest.fixture
def adyen_payout_mock(adyen_payout_prism, settings, monkeypatch) -> Iterator[AdyenMock]:
    """Point the adyen-card connector's payouts at Prism serving Adyen's Payout contract, through the same transport;
    afterwards, every request the library sent must have been valid by Adyen's document."""
    override_processor(settings, "adyen", PAYOUT_API_BASE=adyen_payout_prism.url, TIMEOUT_SECONDS=5)
    adyen_payout_prism.reset()
    monkeypatch.setattr("paymentservices.processors.adyen.http.SessionHTTPClient", AdyenTransport)
    monkeypatch.setattr(AdyenTransport, "mock", adyen_payout_prism)
    yield adyen_payout_prism
    assert adyen_payout_prism.violations() == []


@pytest.fixture
def adyen_disputes_mock(adyen_disputes_prism, settings, monkeypatch) -> Iterator[AdyenMock]:
    """Point Adyen's Disputes API calls at their validating mock (`DISPUTES_BASE`), as `adyen_mock` does the
    Checkout API's; afterwards, every request the library sent must have been valid by Adyen's document."""
    override_processor(settings, "adyen", DISPUTES_BASE=adyen_disputes_prism.url, TIMEOUT_SECONDS=5)
    adyen_disputes_prism.reset()
    monkeypatch.setattr("paymentservices.processors.adyen.http.SessionHTTPClient", AdyenTransport)
    monkeypatch.setattr(AdyenTransport, "mock", adyen_disputes_prism)
    yield adyen_disputes_prism
    assert adyen_disputes_prism.violations() == []
