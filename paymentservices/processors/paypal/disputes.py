"""PayPal's disputes answered through its Customer Disputes API v1 (docs/disputes.md):

- accept: `POST /v1/customer/disputes/{id}/accept-claim`, the claim's liability accepted (PayPal refunds the buyer);
- defend: `POST /v1/customer/disputes/{id}/provide-evidence`: one evidence per kind of document, of PayPal's type for
  that kind (`EVIDENCE_TYPES`), naming its documents, the merchant's words as the first one's notes (words alone: one
  evidence of type `OTHER`), in its `input` part; each document as an `evidence-file` part under the name its
  evidence gives it.

Both are multipart, as PayPal's document declares them. `paypal-server-sdk` has no Disputes controller, so the calls
are built as the library builds its own (its request builder, its OAuth 2 token, its HTTP client and configuration),
the way the connector's `verify-webhook-signature` is: they go where every call of the connector goes and are
answered as they are. PayPal's refusal (a 400, 404, 409 or 422 with its `name` and `message`) is the refused outcome
with PayPal's words; a call that gets no answer (unreachable, 5xx, the app's credentials refused) is
`DisputeUnanswered`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from apimatic_core.authentication.multiple.single_auth import Single
from apimatic_core.request_builder import RequestBuilder
from apimatic_core.response_handler import ResponseHandler
from apimatic_core.types.parameter import Parameter
from paypalserversdk.api_helper import APIHelper
from paypalserversdk.configuration import Server
from paypalserversdk.controllers.base_controller import BaseController
from paypalserversdk.http.http_method_enum import HttpMethodEnum

from payments.choices import EvidenceKind
from paymentservices.processors.calls import NoAnswer, field_of
from paymentservices.processors.paypal.connector import PayPalConnector, PayPalRefused
from paymentservices.processors.seam import (
    AnswerOutcome,
    DisputeAnswer,
    DisputeAnswers,
    DisputeUnanswered,
    Evidence,
    EvidenceFile,
)

# One part of a multipart body as `requests` takes it: its name, then (file name, content, media type).
Part = tuple[str, tuple[str | None, Any, str]]
# PayPal's `accept-claim` takes the merchant's note; an acceptance here carries no words of the merchant's.
ACCEPT_NOTE = "The merchant accepts the claim."
# PayPal's evidence types (its Disputes v1 `evidence.evidence_type`) for what a document shows.
EVIDENCE_TYPES = {
    EvidenceKind.RECEIPT: "PROOF_OF_RECEIPT_COPY",
    EvidenceKind.SHIPPING: "PROOF_OF_FULFILLMENT",
    EvidenceKind.DELIVERY: "PROOF_OF_DELIVERY_SIGNATURE",
    EvidenceKind.SERVICE: "PROOF_FOR_SOFTWARE_OR_SERVICE_DELIVERED",
    EvidenceKind.REFUND: "PROOF_OF_REFUND",
    EvidenceKind.REFUND_POLICY: "RETURN_POLICY",
    EvidenceKind.AGREEMENT: "BILLING_AGREEMENT",
    EvidenceKind.DESCRIPTION: "ITEM_DESCRIPTION",
    EvidenceKind.OTHER: "OTHER",
}
# A document's name as PayPal's `document.name` takes it: letters, digits, `-`, `_`, `,` and spaces, then one
# extension of letters.
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9\-_, ]+")


class PayPalDisputes(DisputeAnswers):
    # PayPal's rules for evidence documents (its provide-evidence reference): JPG, GIF, PNG or PDF, each smaller than
    # 10 MB, up to 50 MB for a case (five of the largest).
    file_types = frozenset({"image/jpeg", "image/gif", "image/png", "application/pdf"})
    max_file_bytes = 10 * 1024 * 1024 - 1
    max_files = 5
    # An evidence's `notes` (PayPal's `notes` are up to 2,000 characters).
    max_text = 2000

    def accept(self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str) -> DisputeAnswer:
        parts: list[Part] = [("input", (None, json.dumps({"note": ACCEPT_NOTE}), "application/json"))]
        return _answer(credentials, dispute_id, "accept-claim", parts) or DisputeAnswer(AnswerOutcome.ACCEPTED)

    def defend(
        self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str, evidence: Evidence
    ) -> DisputeAnswer:
        names = _document_names(evidence.files)
        parts: list[Part] = [
            ("input", (None, json.dumps({"evidences": _evidences(evidence, names)}), "application/json"))
        ]
        parts += [
            ("evidence-file", (name, file.content, file.content_type))
            for name, file in zip(names, evidence.files, strict=True)
        ]
        refused = _answer(credentials, dispute_id, "provide-evidence", parts)
        return refused or DisputeAnswer(AnswerOutcome.UNDER_REVIEW)


def _evidences(evidence: Evidence, names: list[str]) -> list[dict[str, Any]]:
    """One evidence per kind of document, in the order the kinds first come, each naming its documents; the words are
    the first one's notes (an `OTHER` evidence of words alone when there is no document)."""
    by_type: dict[str, dict[str, Any]] = {}
    for name, file in zip(names, evidence.files, strict=True):
        evidence_type = EVIDENCE_TYPES.get(EvidenceKind(file.kind), "OTHER")
        given = by_type.setdefault(evidence_type, {"evidence_type": evidence_type, "documents": []})
        given["documents"].append({"name": name})
    evidences = list(by_type.values()) or [{"evidence_type": "OTHER"}]
    if evidence.text:
        evidences[0]["notes"] = evidence.text
    return evidences


def _document_names(files: tuple[EvidenceFile, ...]) -> list[str]:
    """Each document's name as PayPal takes it (its characters outside PayPal's replaced by `-`, an extension from its
    media type when it has none of letters), made unique by a number where two would be the same: an evidence names
    its documents by the names of their parts."""
    names: list[str] = []
    for position, file in enumerate(files, start=1):
        stem, dot, extension = file.name.rpartition(".")
        if not dot or not extension.isascii() or not extension.isalpha():
            stem, extension = file.name, file.content_type.rpartition("/")[2]
        stem = _NOT_IN_NAME.sub("-", stem).strip() or "document"
        name = f"{stem}.{extension}"
        names.append(f"{stem}-{position}.{extension}" if name in names else name)
    return names


def _answer(credentials: Mapping[str, str], dispute_id: str, action: str, parts: list[Part]) -> DisputeAnswer | None:
    """None when PayPal took the answer, the refused outcome with PayPal's words when it did not."""
    connector = PayPalConnector(
        client_id=credentials.get("client_id", ""), client_secret=credentials.get("client_secret", "")
    )
    try:
        connector.send(lambda configuration: _Disputes(configuration).post(dispute_id, action, parts))
    except PayPalRefused as refused:
        name = field_of(refused.body, "name") or refused.status
        message = field_of(refused.body, "message") or "the answer was refused"
        return DisputeAnswer(AnswerOutcome.REFUSED, f"PayPal: {name}: {message}")
    except NoAnswer as exc:
        raise DisputeUnanswered(f"PayPal gave no answer ({exc.code}).") from None
    return None


class _Parts(RequestBuilder):  # type: ignore[misc] # the library is untyped
    """The library's request builder, sending the multipart parts as given: PayPal takes each document of a defence
    as an `evidence-file` part, which the library's own (one part per name) cannot repeat."""

    def __init__(self, parts: list[Part]) -> None:
        super().__init__()
        self._parts = parts

    def process_multipart_params(self) -> list[Part]:
        return self._parts

    def __deepcopy__(self, memodict: dict[int, Any] | None = None) -> _Parts:
        copied = super().__deepcopy__(memodict or {})
        copied.__class__ = _Parts
        copied._parts = self._parts
        return copied  # type: ignore[no-any-return]


class _Disputes(BaseController):  # type: ignore[misc] # the library is untyped
    """PayPal's Disputes v1 calls this server makes, which `paypal-server-sdk` has no controller for."""

    def post(self, dispute_id: str, action: str, parts: list[Part]) -> Any:
        return (
            super()
            .new_api_call_builder.request(
                _Parts(parts)
                .server(Server.DEFAULT)
                .path(f"/v1/customer/disputes/{{id}}/{action}")
                .http_method(HttpMethodEnum.POST)
                .template_param(Parameter().key("id").value(dispute_id).should_encode(True))
                .header_param(Parameter().key("accept").value("application/json"))
                .auth(Single("Oauth2"))
            )
            .response(ResponseHandler().deserializer(APIHelper.json_deserialize).is_api_response(True))
            .execute()
        )
