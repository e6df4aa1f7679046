"""A deterministic processor for development and tests: the card number decides the outcome, and a 3-D Secure
result the issuer refused declines the payment whatever the card.

The test cards and the 3-D Secure rule are in `docs/test-cards.md`; any other valid card number is approved.
Captures, voids and refunds of sandbox authorizations always succeed.
"""

from __future__ import annotations

from dataclasses import dataclass

from payments.connectors.base import AuthorizationRequest, ConnectorResult, Outcome, ThreeDSecureStatus


@dataclass(frozen=True)
class SandboxCard:
    """What the sandbox answers for one card number."""

    outcome: Outcome
    error_code: str | None
    raw_response_code: str
    raw_response_description: str
    cvv_response_code: str | None = None


APPROVED = SandboxCard(Outcome.APPROVED, None, "00", "Approved")

TEST_CARDS: dict[str, SandboxCard] = {
    "4111111111111111": APPROVED,
    "5555555555554444": APPROVED,
    "378282246310005": APPROVED,
    "4000000000000002": SandboxCard(Outcome.DECLINED, "issuer_decline", "05", "Do not honor"),
    "4000000000000101": SandboxCard(Outcome.DECLINED, "incorrect_cvv", "N7", "Decline for CVV2 failure", "no_match"),
    "4000000000009995": SandboxCard(Outcome.DECLINED, "insufficient_funds", "51", "Insufficient funds"),
    "4000000000000069": SandboxCard(Outcome.DECLINED, "expired_card", "54", "Expired card"),
    "4000000000000119": SandboxCard(Outcome.FAILED, "service_error", "96", "System malfunction"),
}
# The issuer refused to authenticate the cardholder (3-D Secure status N or R): no issuer approves that payment.
THREE_D_SECURE_DECLINED = SandboxCard(
    Outcome.DECLINED, "failed_three_d_secure", "05", "Cardholder authentication failed"
)


def _reference(operation: str, reference: str) -> str:
    # Derived from our own id, so the same request always gets the same processor reference.
    return f"sandbox-{operation}-{reference}"


class SandboxConnector:
    """Answers from the test card table; no network, no state. Reads no connection options."""

    connection_options_keys: frozenset[str] = frozenset()

    def authorize(self, request: AuthorizationRequest) -> ConnectorResult:
        test_card = TEST_CARDS.get(request.card.number, APPROVED)
        if request.three_d_secure is not None and request.three_d_secure.status is ThreeDSecureStatus.DECLINED:
            test_card = THREE_D_SECURE_DECLINED
        cvv = test_card.cvv_response_code or ("match" if request.card.security_code else "not_provided")
        return ConnectorResult(
            outcome=test_card.outcome,
            processor_reference=_reference("authorization", request.reference),
            error_code=test_card.error_code,
            raw_response_code=test_card.raw_response_code,
            raw_response_description=test_card.raw_response_description,
            cvv_response_code=cvv if test_card.outcome is not Outcome.FAILED else None,
        )

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        return self._approved("capture", reference)

    def void(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        return self._approved("void", reference)

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        return self._approved("refund", reference)

    @staticmethod
    def _approved(operation: str, reference: str) -> ConnectorResult:
        return ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=_reference(operation, reference),
            raw_response_code=APPROVED.raw_response_code,
            raw_response_description=APPROVED.raw_response_description,
        )
