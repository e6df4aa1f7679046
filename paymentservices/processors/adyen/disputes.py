"""Adyen's disputes answered through its Disputes API (v30) with Adyen's official library (docs/disputes.md):

- accept: `acceptDispute`;
- defend: `retrieveApplicableDefenseReasons` (the defence reasons Adyen takes for this dispute, each with the document
  types it asks for), `supplyDefenseDocument` (each document under the next type the reason asks for, required ones
  first), then `defendDispute` with the reason. The reason is the one the merchant names, else Adyen's general
  `SupplyDefenseMaterial` when it applies; one Adyen does not offer for the dispute is refused naming those it does.
  Adyen takes documents, not words: a defence with text is refused before anything is sent.

Adyen's refusal is its `disputeServiceResult` (`success: false` with an `errorMessage`) or a 4xx of validation; a
call that gets no answer (unreachable, 5xx, our key refused) is `DisputeUnanswered`. Every call carries an idempotency
key made of the dispute and the step, so a retried answer is not taken twice.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from Adyen.exceptions import AdyenAPIResponseError, AdyenError
from Adyen.services.disputes import AdyenDisputesApi

from paymentservices.processors.adyen.connector import ADYEN_DOMAINS
from paymentservices.processors.adyen.http import SessionClient
from paymentservices.processors.calls import field_of
from paymentservices.processors.config import processor_settings
from paymentservices.processors.hosts import url_allowed
from paymentservices.processors.seam import (
    AnswerOutcome,
    DisputeAnswer,
    DisputeAnswers,
    DisputeUnanswered,
    Evidence,
)

GENERAL_REASON = "SupplyDefenseMaterial"
REFUSAL_STATUSES = (400, 422)


def disputes_base(live: bool) -> str:
    """Where the Disputes API is: DISPUTES_BASE when set (tests, a proxy), else Adyen's Customer Area host."""
    configured = processor_settings("adyen").get("DISPUTES_BASE", "")
    if configured:
        return str(configured).rstrip("/")
    return f"https://ca-{'live' if live else 'test'}.adyen.com/ca/services/DisputeService/v30"


class _HostRefused(AdyenError):  # type: ignore[misc] # the library is untyped
    """The URL is not Adyen's (nor DISPUTES_BASE): nothing was sent."""


class _Client(SessionClient):
    """Adyen's client, calling each URL as built here and only when it is Adyen's or under DISPUTES_BASE."""

    def _determine_api_url(self, platform: str, endpoint: str) -> str:
        configured = processor_settings("adyen").get("DISPUTES_BASE", "")
        if not url_allowed(endpoint, domains=ADYEN_DOMAINS, configured=configured):
            raise _HostRefused("The URL is not one of Adyen's.")
        return endpoint


def _api(credentials: Mapping[str, str]) -> tuple[Any, str]:
    """The Disputes API for a service's credentials, and its merchant account code."""
    own = processor_settings("adyen")
    client = _Client(
        xapikey=credentials.get("api_key", ""),
        merchant_account=credentials.get("merchant_account", ""),
        platform="test",
        http_timeout=own["TIMEOUT_SECONDS"],
    )
    api = AdyenDisputesApi(client=client).disputes_api
    api.baseUrl = disputes_base(bool(credentials.get("live_url_prefix")))
    return api, credentials.get("merchant_account", "")


class AdyenDisputes(DisputeAnswers):
    # Adyen's defence documents: PDF, JPEG or TIFF, each up to 2 MB (its "Defend a dispute" guide); no free text.
    file_types = frozenset({"application/pdf", "image/jpeg", "image/tiff"})
    max_file_bytes = 2 * 1024 * 1024
    max_files = 5
    max_text = 0
    takes_reason = True

    def accept(self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str) -> DisputeAnswer:
        api, account = _api(credentials)
        request = {"disputePspReference": dispute_id, "merchantAccountCode": account}
        refused = _refusal(_call(api.accept_dispute, request, key=f"{dispute_id}-accept"))
        return refused or DisputeAnswer(AnswerOutcome.ACCEPTED)

    def defend(
        self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str, evidence: Evidence
    ) -> DisputeAnswer:
        api, account = _api(credentials)
        base = {"disputePspReference": dispute_id, "merchantAccountCode": account}
        offered = _call(api.retrieve_applicable_defense_reasons, base, key=f"{dispute_id}-reasons")
        refused = _refusal(offered)
        if refused:
            return refused
        reasons = {reason["defenseReasonCode"]: reason for reason in offered.get("defenseReasons") or []}
        chosen = evidence.reason or GENERAL_REASON
        if chosen not in reasons:
            named = ", ".join(sorted(reasons)) or "none"
            return DisputeAnswer(AnswerOutcome.REFUSED, f"Adyen takes these defence reasons for the dispute: {named}")
        types = _document_types(reasons[chosen])
        if len(evidence.files) > len(types):
            return DisputeAnswer(
                AnswerOutcome.REFUSED, f"Adyen takes {len(types)} documents for the reason {chosen}: {', '.join(types)}"
            )
        if evidence.files:
            documents = [
                {
                    "content": base64.b64encode(file.content).decode(),
                    "contentType": file.content_type,
                    "defenseDocumentTypeCode": code,
                }
                for file, code in zip(evidence.files, types, strict=False)
            ]
            supplied = _call(
                api.supply_defense_document, {**base, "defenseDocuments": documents}, key=f"{dispute_id}-docs"
            )
            refused = _refusal(supplied)
            if refused:
                return refused
        defended = _call(api.defend_dispute, {**base, "defenseReasonCode": chosen}, key=f"{dispute_id}-defend")
        return _refusal(defended) or DisputeAnswer(AnswerOutcome.UNDER_REVIEW)


def _document_types(reason: Mapping[str, Any]) -> list[str]:
    """The document types a reason asks for, required ones first."""
    types = reason.get("defenseDocumentTypes") or []
    ordered = sorted(types, key=lambda kind: kind.get("requirementLevel") != "Required")
    return [kind["defenseDocumentTypeCode"] for kind in ordered]


def _call(operation: Any, request: dict[str, Any], *, key: str) -> dict[str, Any]:
    """Adyen's answer to one call (a refusal of validation as a refused service result); no answer raises."""
    try:
        result = operation(request, idempotency_key=key)
    except AdyenAPIResponseError as error:
        status = int(error.status_code or 0)
        if status in REFUSAL_STATUSES:
            said = field_of(error.message, "message") if isinstance(error.message, dict) else None
            return {"disputeServiceResult": {"success": False, "errorMessage": said or "the request was refused"}}
        raise DisputeUnanswered(f"Adyen gave no answer ({status or type(error).__name__}).") from error
    except (AdyenError, OSError) as error:
        raise DisputeUnanswered(f"Adyen gave no answer ({type(error).__name__}).") from error
    message = result.message if isinstance(result.message, dict) else {}
    return message


def _refusal(answer: Mapping[str, Any]) -> DisputeAnswer | None:
    result = answer.get("disputeServiceResult") or {}
    if result.get("success") is True:
        return None
    return DisputeAnswer(AnswerOutcome.REFUSED, f"Adyen: {result.get('errorMessage') or 'the answer was refused'}")
