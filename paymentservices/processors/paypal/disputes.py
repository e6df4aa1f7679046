"""PayPal's disputes answered through its Customer Disputes API v1 (docs/disputes.md):

- accept: `POST /v1/customer/disputes/{id}/accept-claim`, the claim's liability accepted (PayPal refunds the buyer);
- defend: `POST /v1/customer/disputes/{id}/provide-evidence`, the merchant's words as the notes of one evidence of
  type `OTHER` (its `input` part) and each document as an `evidence-file` part.

Both are multipart, as PayPal's document declares them. `paypal-server-sdk` has no Disputes controller, so the calls
are built as the library builds its own (its request builder, its OAuth 2 token, its HTTP client and configuration),
the way the connector's `verify-webhook-signature` is: they go where every call of the connector goes and are
answered as they are. PayPal's refusal (a 400, 404, 409 or 422 with its `name` and `message`) is the refused outcome
with PayPal's words; a call that gets no answer (unreachable, 5xx, the app's credentials refused) is
`DisputeUnanswered`.
"""

from __future__ import annotations

import json
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

from paymentservices.processors.calls import NoAnswer, field_of
from paymentservices.processors.paypal.connector import PayPalConnector, PayPalRefused
from paymentservices.processors.seam import (
    AnswerOutcome,
    DisputeAnswer,
    DisputeAnswers,
    DisputeUnanswered,
    Evidence,
)

# One part of a multipart body as `requests` takes it: its name, then (file name, content, media type).
Part = tuple[str, tuple[str | None, Any, str]]
# PayPal's `accept-claim` takes the merchant's note; an acceptance here carries no words of the merchant's.
ACCEPT_NOTE = "The merchant accepts the claim."


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
        given: dict[str, Any] = {"evidence_type": "OTHER"}
        if evidence.text:
            given["notes"] = evidence.text
        parts: list[Part] = [("input", (None, json.dumps({"evidences": [given]}), "application/json"))]
        parts += [("evidence-file", (file.name, file.content, file.content_type)) for file in evidence.files]
        refused = _answer(credentials, dispute_id, "provide-evidence", parts)
        return refused or DisputeAnswer(AnswerOutcome.UNDER_REVIEW)


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
