"""The sandbox: a deterministic processor for development and tests (docs/test-cards.md). `TEST_CARDS` and
`SandboxConnector` are public: the demo data pays with its cards, and tests script answers on top of it; its
settlement report (`read_sandbox_report`, its price list) is what the settlements app publishes from its records."""

from paymentservices.processors.sandbox.connector import TEST_CARDS, SandboxConnector
from paymentservices.processors.sandbox.processor import SandboxProcessor
from paymentservices.processors.sandbox.settlements import FIXED_FEE, PERCENT_FEE, day_start, read_sandbox_report

PROCESSOR = SandboxProcessor()

__all__ = [
    "FIXED_FEE",
    "PERCENT_FEE",
    "PROCESSOR",
    "TEST_CARDS",
    "SandboxConnector",
    "day_start",
    "read_sandbox_report",
]
