"""The sandbox's card payouts: the card number decides (docs/test-cards.md, "Payouts"), and every decision is kept
under our reference (`SandboxOperation`), so asking again with the same reference answers the first decision and
never pays a second time, as a processor's idempotency key does."""

from __future__ import annotations

from collections.abc import Mapping

from payments.connectors.base import ConnectorResult, Outcome
from payments.connectors.models import SandboxOperation
from paymentservices.processors.paying_out import CardPayouts, PayoutRequest
from paymentservices.processors.sandbox.connector import APPROVED, SandboxCard, remember

# What the sandbox answers a payout to these cards; any other valid card receives the money.
PAYOUT_CARDS: dict[str, SandboxCard] = {
    "4000000000000002": SandboxCard(Outcome.DECLINED, "issuer_decline", "05", "Do not honor"),
    # A card whose issuer takes no payouts (prepaid cards of some programmes, some credit cards).
    "4000000000000127": SandboxCard(Outcome.DECLINED, "unsupported_card", "57", "The card cannot receive payouts"),
    "4000000000000119": SandboxCard(Outcome.FAILED, "service_error", "96", "System malfunction"),
}


class SandboxPayouts(CardPayouts):
    def pay_out(
        self, *, credentials: Mapping[str, str], request: PayoutRequest, deadline: float | None = None
    ) -> ConnectorResult:
        decided = SandboxOperation.objects.filter(
            reference=request.reference, operation=SandboxOperation.Operation.PAYOUT
        ).first()
        if decided is not None:  # asked again under the same reference: the first decision, nothing paid twice
            return ConnectorResult(
                outcome=Outcome(decided.outcome),
                processor_reference=decided.processor_reference,
                error_code=decided.error_code,
                raw_response_code=decided.raw_response_code,
                raw_response_description=decided.raw_response_description,
            )
        card = PAYOUT_CARDS.get(request.card.number, APPROVED)
        result = ConnectorResult(
            outcome=card.outcome,
            processor_reference=f"sandbox-payout-{request.reference}",
            error_code=card.error_code,
            raw_response_code=card.raw_response_code,
            raw_response_description=card.raw_response_description,
        )
        if card.outcome is Outcome.FAILED:  # no decision was made: nothing to remember
            return result
        return remember(
            SandboxOperation.Operation.PAYOUT,
            request.reference,
            result,
            amount=request.amount,
            currency=request.currency,
        )
