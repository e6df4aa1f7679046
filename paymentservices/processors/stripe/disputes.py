"""Stripe's disputes answered through Stripe's official library (docs/disputes.md, "Answering"):

- accept: "Close a dispute" (`POST /v1/disputes/{id}/close`): Stripe marks it `lost`, the buyer keeps the money;
- defend: each document uploaded as a File of purpose `dispute_evidence` ("Create a file", on Stripe's files host),
  then "Update a dispute" (`POST /v1/disputes/{id}`) with the evidence and `submit=true`: Stripe sends it to the bank
  and the dispute is `under_review`. The words are the evidence's `uncategorized_text`; each document goes to the
  evidence field of what it shows (`receipt`, `shipping_documentation`, ...; `EVIDENCE_FIELDS`), a kind Stripe has
  no field for to `uncategorized_file`. A field holds one file, so two documents of one field are refused before
  anything is sent.

Stripe's refusal (a closed dispute, evidence already submitted, a file it does not take) is its `invalid_request_error`
message; a call that gets no answer is `DisputeUnanswered`, never a refusal.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import stripe

from payments.choices import EvidenceKind
from paymentservices.processors.seam import (
    AnswerOutcome,
    DisputeAnswer,
    DisputeAnswers,
    DisputeUnanswered,
    Evidence,
)
from paymentservices.processors.stripe.connector import account_client, value_of

# The file field of Stripe's dispute `evidence` for each kind of document; the others go to `uncategorized_file`.
EVIDENCE_FIELDS: dict[str, str] = {
    EvidenceKind.RECEIPT: "receipt",
    EvidenceKind.SHIPPING: "shipping_documentation",
    EvidenceKind.DELIVERY: "shipping_documentation",
    EvidenceKind.SERVICE: "service_documentation",
    EvidenceKind.REFUND_POLICY: "refund_policy",
    EvidenceKind.AGREEMENT: "customer_signature",
}
UNCATEGORIZED_FILE = "uncategorized_file"
# All of a dispute's files together (its "Respond to disputes" guide).
MAX_TOTAL_BYTES = 4_500_000


def evidence_field(kind: str) -> str:
    return EVIDENCE_FIELDS.get(kind, UNCATEGORIZED_FILE)


# Stripe's Dispute statuses once answered: a submitted defence is under review (an inquiry's too), a closed one lost.
UNDER_REVIEW = ("under_review", "warning_under_review")


class StripeDisputes(DisputeAnswers):
    # Stripe's dispute evidence: PDF, JPEG or PNG, one document per file field.
    file_types = frozenset({"application/pdf", "image/jpeg", "image/png"})
    max_file_bytes = MAX_TOTAL_BYTES
    max_files = len({*EVIDENCE_FIELDS.values(), UNCATEGORIZED_FILE})
    max_text = 20_000  # `uncategorized_text`'s limit

    def evidence_refused(self, evidence: Evidence) -> tuple[str, str] | None:
        first_of_field: dict[str, int] = {}
        for position, document in enumerate(evidence.files):
            field = evidence_field(document.kind)
            if field in first_of_field:
                return (
                    f"/files/{position}/kind",
                    f"Stripe takes one document as its {field} evidence: documents {first_of_field[field]} and "
                    f"{position} would both be it.",
                )
            first_of_field[field] = position
        total = sum(len(document.content) for document in evidence.files)
        if total > MAX_TOTAL_BYTES:
            return "/files", f"The documents are {total} bytes together; Stripe takes at most {MAX_TOTAL_BYTES}."
        return None

    def accept(self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str) -> DisputeAnswer:
        client = account_client(credentials["secret_key"])
        dispute = _call(lambda: client.v1.disputes.close(dispute_id))
        if isinstance(dispute, DisputeAnswer):
            return dispute
        status = value_of(dispute, "status")
        if status == "lost":
            return DisputeAnswer(AnswerOutcome.ACCEPTED)
        return DisputeAnswer(AnswerOutcome.REFUSED, f"Stripe left the dispute {status}")

    def defend(
        self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str, evidence: Evidence
    ) -> DisputeAnswer:
        client = account_client(credentials["secret_key"])
        fields: dict[str, Any] = {"uncategorized_text": evidence.text} if evidence.text else {}
        for document in evidence.files:
            # The library uploads a file-like object by its `name`; Stripe tells the type from the bytes.
            upload = io.BytesIO(document.content)
            upload.name = document.name
            params = {"purpose": "dispute_evidence", "file": upload}
            made = _call(lambda params=params: client.v1.files.create(params=params))
            if isinstance(made, DisputeAnswer):
                return made
            fields[evidence_field(document.kind)] = made.id
        answer = {"evidence": fields, "submit": True}
        dispute = _call(lambda: client.v1.disputes.update(dispute_id, params=answer))  # type: ignore[arg-type]
        if isinstance(dispute, DisputeAnswer):
            return dispute
        status = value_of(dispute, "status")
        if status in UNDER_REVIEW:
            return DisputeAnswer(AnswerOutcome.UNDER_REVIEW)
        return DisputeAnswer(AnswerOutcome.REFUSED, f"Stripe left the dispute {status}")


def _call(send: Any) -> Any:
    """Stripe's answer to one call; its refusal as a refused `DisputeAnswer`; no answer raises `DisputeUnanswered`."""
    try:
        return send()
    except (stripe.InvalidRequestError, stripe.CardError) as error:
        return DisputeAnswer(AnswerOutcome.REFUSED, f"Stripe: {error.user_message or 'the request was refused'}")
    except stripe.StripeError as error:
        raise DisputeUnanswered(f"Stripe gave no answer ({type(error).__name__}, {error.http_status}).") from error
