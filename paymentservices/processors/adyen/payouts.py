"""Adyen's instant card payouts: `POST /payout` of its Payout API (v68) through Adyen's official library.

Our reference (the payout's id) is Adyen's `reference` and the call's idempotency key: a payout asked again (a retry
after no answer, recovery of one left pending) is answered with what Adyen did the first time, never paid twice.
`Authorised` is money on its way; `Refused` (and `Error`, `Cancelled`) a decline in upstream's words; an answer that
decides nothing (`Received`, `Pending`) leaves the payout pending, like no answer at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from Adyen.exceptions import AdyenAPIResponseError

from payments.connectors.base import ConnectorResult, Outcome, OutcomeUnknown
from paymentservices.processors.adyen.codes import APPROVED_RESULTS, DECLINED_RESULTS, DEFAULT_REFUSAL, REFUSAL_REASONS
from paymentservices.processors.adyen.connector import AdyenConnector, describe, no_answer_result, refused_request
from paymentservices.processors.calls import NoAnswer, field_of
from paymentservices.processors.paying_out import CardPayouts, PayoutRequest

# Adyen's `Card.holderName` and `Name` bounds (contracts/adyen/payout-v68.json).
HOLDER_NAME_MAX = 50
NAME_PART_MAX = 80


def payout_body(request: PayoutRequest) -> dict[str, Any]:
    """The `PayoutRequest` Adyen takes (its merchant account is added by the connector)."""
    card: dict[str, Any] = {
        "number": request.card.number,
        "expiryMonth": f"{request.card.expiration_month:02d}",
        "expiryYear": f"{request.card.expiration_year:04d}",
    }
    body: dict[str, Any] = {
        "amount": {"value": request.amount, "currency": request.currency},
        "reference": request.reference,
        "card": card,
    }
    recipient = request.recipient
    if recipient is not None:
        names = [part for part in (recipient.first_name, recipient.last_name) if part]
        if names:
            card["holderName"] = " ".join(names)[:HOLDER_NAME_MAX]
        if recipient.first_name and recipient.last_name:
            body["shopperName"] = {
                "firstName": recipient.first_name[:NAME_PART_MAX],
                "lastName": recipient.last_name[:NAME_PART_MAX],
            }
        if recipient.email:
            body["shopperEmail"] = recipient.email
    return body


def payout_result(answer: Mapping[str, Any]) -> ConnectorResult:
    """What Adyen's answer says of the payout; `OutcomeUnknown` when it decided nothing yet."""
    code = str(field_of(answer, "resultCode") or "")
    psp = field_of(answer, "pspReference")
    if code in APPROVED_RESULTS:
        return ConnectorResult(
            outcome=Outcome.APPROVED, processor_reference=psp, raw_response_code=code, raw_response_description=code
        )
    if code in DECLINED_RESULTS:
        reason = field_of(answer, "refusalReason")
        additional = field_of(answer, "additionalData") or {}
        reason_code = field_of(additional, "refusalReasonCode")
        default = "processing_error" if code == "Error" else "cancelled" if code == "Cancelled" else DEFAULT_REFUSAL
        return ConnectorResult(
            outcome=Outcome.DECLINED,
            processor_reference=psp,
            error_code=REFUSAL_REASONS.get(str(reason_code), default) if reason_code else default,
            raw_response_code=str(reason_code) if reason_code else code,
            raw_response_description=describe(reason, field_of(additional, "refusalReasonRaw")) or code,
        )
    raise OutcomeUnknown(f"Adyen answered {code or 'with no result code'}: the payout is not decided yet.")


class AdyenPayouts(CardPayouts):
    def pay_out(
        self, *, credentials: Mapping[str, str], request: PayoutRequest, deadline: float | None = None
    ) -> ConnectorResult:
        connector = AdyenConnector(
            api_key=credentials.get("api_key", ""),
            merchant_account=credentials.get("merchant_account", ""),
            live_url_prefix=credentials.get("live_url_prefix") or None,
            deadline=deadline,
        )
        try:
            answer = connector.payout(payout_body(request), reference=request.reference)
        except NoAnswer as exc:
            if exc.sent:  # it may have paid: only Adyen's answer to the same key may say
                raise OutcomeUnknown("Adyen gave no answer to the payout.") from None
            return no_answer_result(exc)
        except AdyenAPIResponseError as exc:
            return refused_request(exc)
        return payout_result(answer)
