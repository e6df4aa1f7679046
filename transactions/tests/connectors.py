"""Connector doubles: the sandbox for authorizations, with scripted answers for everything after."""

from __future__ import annotations

from payments.connectors import AuthorizationRequest, ConnectorResult, Outcome
from paymentservices.processors.sandbox import SandboxConnector


class ProcessorDown(Exception):
    """The processor could not be reached: the outcome of the call is unknown."""


class ProcessKilled(BaseException):
    """The process died during the call (SIGKILL): no handler runs, nothing after this point happens."""


class ScriptedConnector(SandboxConnector):
    """Answers each operation as `script` says (default: like the sandbox) and remembers every call.

    `script[operation] = ProcessKilled` kills the process before the processor hears of the call; an operation
    in `killed_after` lets the sandbox decide (and record its decision), then kills the process.
    """

    script: dict[str, Outcome | type[BaseException]] = {}
    killed_after: set[str] = set()
    calls: list[tuple[str, dict]] = []

    def authorize(self, request: AuthorizationRequest):
        details = {"amount": request.amount, "capture": request.capture, "reference": request.reference}
        self.calls.append(("authorize", {**details, "request": request}))
        return self._answer("authorize") or self._then_killed("authorize", super().authorize(request))

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str):
        self.calls.append(("capture", {"processor_reference": processor_reference, "amount": amount}))
        return self._answer("capture") or self._then_killed(
            "capture",
            super().capture(
                processor_reference=processor_reference, amount=amount, currency=currency, reference=reference
            ),
        )

    def void(self, *, processor_reference: str, reference: str):
        self.calls.append(("void", {"processor_reference": processor_reference}))
        return self._answer("void") or self._then_killed(
            "void", super().void(processor_reference=processor_reference, reference=reference)
        )

    def lookup(self, *, reference: str):
        self.calls.append(("lookup", {"reference": reference}))
        return super().lookup(reference=reference)

    def increment_authorization(
        self, *, processor_reference: str, amount: int, total: int, currency: str, reference: str
    ):
        self.calls.append(("increment", {"processor_reference": processor_reference, "amount": amount, "total": total}))
        return self._answer("increment") or self._then_killed(
            "increment",
            super().increment_authorization(
                processor_reference=processor_reference,
                amount=amount,
                total=total,
                currency=currency,
                reference=reference,
            ),
        )

    def _then_killed(self, operation: str, result: ConnectorResult) -> ConnectorResult:
        if operation in self.killed_after:
            raise ProcessKilled(f"{operation}: the process died after the processor decided")
        return result

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str):
        self.calls.append(("refund", {"processor_reference": processor_reference, "amount": amount}))
        return self._answer("refund") or self._then_killed(
            "refund",
            super().refund(
                processor_reference=processor_reference, amount=amount, currency=currency, reference=reference
            ),
        )

    def _answer(self, operation: str) -> ConnectorResult | None:
        scripted = self.script.get(operation)
        if scripted is None:
            return None
        if isinstance(scripted, type) and issubclass(scripted, BaseException):
            raise scripted(f"{operation}: no answer from the processor")
        return ConnectorResult(
            outcome=scripted,
            processor_reference=f"scripted-{operation}",
            error_code="issuer_decline" if scripted is Outcome.DECLINED else "service_error",
            raw_response_code="05" if scripted is Outcome.DECLINED else "96",
            raw_response_description="Scripted refusal",
        )
