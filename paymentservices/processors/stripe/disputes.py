"""Stripe's disputes answered through Stripe's official library (docs/disputes.md, "Answering"):

- accept: "Close a dispute" (`POST /v1/disputes/{id}/close`): Stripe marks it `lost`, the buyer keeps the money;
- defend: each document uploaded as a File of purpose `dispute_evidence` ("Create a file", on Stripe's files host),
  then "Update a dispute" (`POST /v1/disputes/{id}`) with the evidence and `submit=true`: Stripe sends it to the bank
  and the dispute is `under_review`. The words are the evidence's `uncategorized_text`, the document its
  `uncategorized_file` (the one field for a document of no named kind, so one document per defence).

Stripe's refusal (a closed dispute, evidence already submitted, a file it does not take) is its `invalid_request_error`
message; a call that gets no answer is `DisputeUnanswered`, never a refusal.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import stripe

from paymentservices.processors.seam import (
    AnswerOutcome,
    DisputeAnswer,
    DisputeAnswers,
    DisputeUnanswered,
    Evidence,
)
from paymentservices.processors.stripe.connector import account_client, value_of

# Stripe's Dispute statuses once answered: a submitted defence is under review (an inquiry's too), a closed one lost.
UNDER_REVIEW = ("under_review", "warning_under_review")


class StripeDisputes(DisputeAnswers):
    # Stripe's dispute evidence: PDF, JPEG or PNG, all of a dispute's files under 4.5 MB together (its "Respond to
    # disputes" guide); one document of no named kind (`uncategorized_file`).
    file_types = frozenset({"application/pdf", "image/jpeg", "image/png"})
    max_file_bytes = 4_500_000
    max_files = 1
    max_text = 20_000  # `uncategorized_text`'s limit

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
            fields["uncategorized_file"] = made.id
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
