"""Connector doubles: the sandbox for authorizations, with scripted answers for everything after."""

from __future__ import annotations

from payments.connectors import AuthorizationRequest, ConnectorResult, Outcome
from payments.connectors.sandbox import SandboxConnector


class ProcessorDown(Exception):
    """The processor could not be reached: the outcome of the call is unknown."""


class ScriptedConnector(SandboxConnector):
    """Answers each operation as `script` says (default: like the sandbox) and remembers every call."""

    script: dict[str, Outcome | type[Exception]] = {}
    calls: list[tuple[str, dict]] = []

    def authorize(self, request: AuthorizationRequest):
        self.calls.append(("authorize", {"amount": request.amount, "capture": request.capture, "request": request}))
        return self._answer("authorize") or super().authorize(request)

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str):
        self.calls.append(("capture", {"processor_reference": processor_reference, "amount": amount}))
        return self._answer("capture") or super().capture(
            processor_reference=processor_reference, amount=amount, currency=currency, reference=reference
        )

    def void(self, *, processor_reference: str, reference: str):
        self.calls.append(("void", {"processor_reference": processor_reference}))
        return self._answer("void") or super().void(processor_reference=processor_reference, reference=reference)

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str):
        self.calls.append(("refund", {"processor_reference": processor_reference, "amount": amount}))
        return self._answer("refund") or super().refund(
            processor_reference=processor_reference, amount=amount, currency=currency, reference=reference
        )

    def _answer(self, operation: str) -> ConnectorResult | None:
        scripted = self.script.get(operation)
        if scripted is None:
            return None
        if isinstance(scripted, type) and issubclass(scripted, Exception):
            raise scripted(f"{operation}: no answer from the processor")
        return ConnectorResult(
            outcome=scripted,
            processor_reference=f"scripted-{operation}",
            error_code="issuer_decline" if scripted is Outcome.DECLINED else "service_error",
            raw_response_code="05" if scripted is Outcome.DECLINED else "96",
            raw_response_description="Scripted refusal",
        )
