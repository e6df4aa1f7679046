"""The sandbox: a deterministic processor for development and tests (docs/test-cards.md). `TEST_CARDS` and
`SandboxConnector` are public: the demo data pays with its cards, and tests script answers on top of it."""

from paymentservices.processors.sandbox.connector import TEST_CARDS, SandboxConnector
from paymentservices.processors.sandbox.processor import SandboxProcessor

PROCESSOR = SandboxProcessor()

__all__ = ["PROCESSOR", "TEST_CARDS", "SandboxConnector"]
