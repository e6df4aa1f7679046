"""A deterministic processor for development and tests: the card number decides the outcome, and a 3-D Secure
result the issuer refused declines the payment whatever the card.

The test cards and the 3-D Secure rule are in `docs/test-cards.md`; any other valid card number is approved.
Captures, voids and refunds of sandbox authorizations always succeed. Like a real processor, the sandbox keeps
its own record of every decision (`SandboxOperation`, committed as it decides), so `lookup` answers truthfully
after the caller crashed. Two test cards take `SANDBOX_SLOW_CARD_SECONDS` to answer, one before and one after
deciding, so a test can kill a process in either moment.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from enum import StrEnum

from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone

from payments.connectors.base import AuthorizationRequest, ConnectorResult, Outcome, ThreeDSecureStatus
from payments.connectors.models import SandboxOperation
from payments.savepoints import savepoint_if_nested


class Delay(StrEnum):
    """When a slow test card waits: before deciding (a crash leaves no decision) or after (one never heard)."""

    BEFORE_DECIDING = "before_deciding"
    AFTER_DECIDING = "after_deciding"


@dataclass(frozen=True)
class SandboxCard:
    """What the sandbox answers for one card number."""

    outcome: Outcome
    error_code: str | None
    raw_response_code: str
    raw_response_description: str
    cvv_response_code: str | None = None
    delay: Delay | None = None
    card_replaced: bool = False


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
    "4000000000000259": SandboxCard(Outcome.APPROVED, None, "00", "Approved", delay=Delay.BEFORE_DECIDING),
    "4000000000000267": SandboxCard(Outcome.APPROVED, None, "00", "Approved", delay=Delay.AFTER_DECIDING),
    "4000000000000358": SandboxCard(
        Outcome.DECLINED, "card_replaced", "25", "Card replaced by the issuer", card_replaced=True
    ),
}
# Stored-credential behaviour (docs/test-cards.md): approved while the buyer is present, declined for every
# merchant-initiated charge. (`4000000000000358` above is the card its issuer reports replaced.)
MERCHANT_INITIATED_REFUSED = "4000000000000341"
MERCHANT_INITIATED_DECLINED = SandboxCard(
    Outcome.DECLINED, "issuer_decline", "R1", "The cardholder refused merchant-initiated charges"
)
# The issuer refused to authenticate the cardholder (3-D Secure status N or R): no issuer approves that payment.
THREE_D_SECURE_DECLINED = SandboxCard(
    Outcome.DECLINED, "failed_three_d_secure", "05", "Cardholder authentication failed"
)


# The sandbox's tokens of its own test cards end with the card's last four digits (one per card in its table), so a
# payment sent the token is decided as the card it kept; any other card kept is approved as it would be.
KEPT_BY_LAST_FOUR = {number[-4:]: number for number in [*TEST_CARDS, MERCHANT_INITIATED_REFUSED]}


def kept_tag(number: str) -> str:
    """What the sandbox's token of a kept card ends with: `-` and its last four digits for a card of its table."""
    return f"-{number[-4:]}" if KEPT_BY_LAST_FOUR.get(number[-4:]) == number else ""


def kept_number(token: str) -> str | None:
    """The test card the sandbox kept under `token` (None for any other card: approved)."""
    _, dash, last_four = token.rpartition("-")
    return KEPT_BY_LAST_FOUR.get(last_four) if dash else None


def _reference(operation: str, reference: str) -> str:
    # Derived from our own id, so the same request always gets the same processor reference.
    return f"sandbox-{operation}-{reference}"


def _wait(test_card: SandboxCard, moment: Delay) -> None:
    if test_card.delay is moment:
        time.sleep(settings.SANDBOX_SLOW_CARD_SECONDS)


def remember(operation: str, reference: str, result: ConnectorResult, **money: object) -> ConnectorResult:
    """Record the decision in one statement (an INSERT; the latest decision wins): committed at once, as a
    processor's records are (connectors are called outside the caller's transactions), whatever becomes of
    the caller afterwards."""
    values = {"operation": operation, **{name: getattr(result, name) for name in _RESULT_FIELDS}, **money}
    try:
        with savepoint_if_nested():
            SandboxOperation(reference=reference, **values).save(force_insert=True)
    except IntegrityError:  # asked again under the same reference: the latest decision wins
        SandboxOperation.objects.filter(reference=reference).update(**values, decided_at=timezone.now())
    return result


_RESULT_FIELDS = (
    "outcome",
    "processor_reference",
    "error_code",
    "raw_response_code",
    "raw_response_description",
    "cvv_response_code",
)


def _scheme_transaction_id(reference: str) -> str:
    """The card scheme's id of an approved authorization, derived from our reference, so the same payment always
    gets the same id (a lookup after a crash answers it too). Marked as the sandbox's, never mistaken for a scheme's."""
    return f"sandbox-scheme-{hashlib.sha256(reference.encode()).hexdigest()[:12]}"


def _issuer_details(result: ConnectorResult, reference: str) -> ConnectorResult:
    """What a card network adds to the processor's answer: the issuer's own code, and the scheme's id of an
    approved payment."""
    if result.outcome is Outcome.FAILED:
        return result
    approved = result.outcome is Outcome.APPROVED
    return replace(
        result,
        auth_response_code=result.raw_response_code,
        scheme_transaction_id=_scheme_transaction_id(reference) if approved else None,
    )


class SandboxConnector:
    """Answers from the test card table, and remembers each answer by the caller's reference. Reads no
    connection options."""

    def authorize(self, request: AuthorizationRequest) -> ConnectorResult:
        # Sent its token of a stored card, the sandbox decides by the card it kept, never by a number beside it.
        number = (kept_number(request.processor_token.token) or "") if request.processor_token else request.card.number
        test_card = TEST_CARDS.get(number, APPROVED)
        if number == MERCHANT_INITIATED_REFUSED and request.merchant_initiated:
            test_card = MERCHANT_INITIATED_DECLINED
        if request.three_d_secure is not None and request.three_d_secure.status is ThreeDSecureStatus.DECLINED:
            test_card = THREE_D_SECURE_DECLINED
        _wait(test_card, Delay.BEFORE_DECIDING)
        cvv = test_card.cvv_response_code or ("match" if request.card.security_code else "not_provided")
        result = ConnectorResult(
            outcome=test_card.outcome,
            processor_reference=_reference("authorization", request.reference),
            error_code=test_card.error_code,
            raw_response_code=test_card.raw_response_code,
            raw_response_description=test_card.raw_response_description,
            cvv_response_code=cvv if test_card.outcome is not Outcome.FAILED else None,
            card_replaced=test_card.card_replaced,
        )
        # The sandbox checks no address: it gives no AVS result, as processors that do not check addresses.
        result = _issuer_details(result, request.reference)
        remember(
            SandboxOperation.Operation.AUTHORIZATION,
            request.reference,
            result,
            amount=request.amount,
            currency=request.currency,
        )
        _wait(test_card, Delay.AFTER_DECIDING)
        return result

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        return self._approved(SandboxOperation.Operation.CAPTURE, reference, amount=amount, currency=currency)

    def void(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        return self._approved(SandboxOperation.Operation.VOID, reference)

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        return self._approved(SandboxOperation.Operation.REFUND, reference, amount=amount, currency=currency)

    def increment_authorization(
        self, *, processor_reference: str, amount: int, total: int, currency: str, reference: str
    ) -> ConnectorResult:
        """The sandbox issuer takes every increment (it keeps the amount added under the increment's reference)."""
        return self._approved(SandboxOperation.Operation.INCREMENT, reference, amount=amount, currency=currency)

    def lookup(self, *, reference: str) -> ConnectorResult | None:
        decided = SandboxOperation.objects.filter(reference=reference).first()
        if decided is None:
            return None
        fields = {name: getattr(decided, name) for name in _RESULT_FIELDS}
        result = ConnectorResult(**{**fields, "outcome": Outcome(decided.outcome)})
        if decided.operation == SandboxOperation.Operation.AUTHORIZATION:
            return _issuer_details(result, reference)
        return result

    @staticmethod
    def _approved(operation: str, reference: str, **money: object) -> ConnectorResult:
        result = ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=_reference(operation, reference),
            raw_response_code=APPROVED.raw_response_code,
            raw_response_description=APPROVED.raw_response_description,
        )
        return remember(operation, reference, result, **money)
