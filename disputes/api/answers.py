"""`/transactions/{id}/disputes/{dispute_id}/accept` and `/defend`: a dispute answered at its processor (an extension:
upstream has no dispute writes; docs/disputes.md, docs/api-contracts.md)."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import buyer_access
from disputes.api.serializers import DisputeAnswerOutput, DisputeDefendInput
from disputes.models import Dispute, DisputeAnswer
from disputes.services import dispute_answer
from payments.errors import NotFound
from payments.rest.fields import validated_request
from payments.rest.idempotency import idempotent
from payments.rest.permissions import request_merchant_account, request_principal
from transactions.selectors import transaction_get
from transactions.services.state import Actor

IDEMPOTENCY_KEY = OpenApiParameter("idempotency-key", str, OpenApiParameter.HEADER, required=False)


def _dispute(request: Request, transaction_id: str, dispute_id: str) -> Dispute:
    """The dispute the URL names, of the account's transaction the URL names (a buyer-pinned token: its buyer's only);
    anything else answers as missing."""
    txn = transaction_get(merchant_account=request_merchant_account(request), id=transaction_id)
    if not buyer_access(request_principal(request), resource="transactions").owns(txn.buyer):
        raise NotFound("The transaction could not be found.")
    key = _uuid_or_none(dispute_id)
    dispute = Dispute.objects.filter(transaction=txn, pk=key).first() if key else None
    if dispute is None:
        raise NotFound("The dispute could not be found.")
    return dispute


def _uuid_or_none(value: str) -> str | None:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def _answered(answer: DisputeAnswer) -> Response:
    return Response(DisputeAnswerOutput(answer).data, status=status.HTTP_201_CREATED)


class DisputeAnswerViewSet(viewsets.GenericViewSet):
    queryset = DisputeAnswer.objects.none()  # names the model for the schema and the audit log
    # Their own scope: answering a dispute gives money up (an acceptance) or speaks for the merchant to the bank.
    scope_resource = "disputes"
    http_method_names = ["post"]

    @extend_schema(
        operation_id="accept_transaction_dispute",
        request=None,
        responses={201: DisputeAnswerOutput},
        parameters=[IDEMPOTENCY_KEY],
    )
    @idempotent
    def accept(self, request: Request, transaction_id: str, dispute_id: str) -> Response:
        """Accept a dispute

        Concedes the dispute at its processor: the buyer keeps the disputed amount. Answers what the processor took;
        the dispute's state moves with the processor's next notification. Needs the `disputes.write` scope. An
        extension of this server.

        409: The dispute is closed, already answered or past its due date; its processor's disputes are answered in
        the processor's dashboard; or the processor refused the answer (its reason is the message, nothing is kept).
        503: The processor could not be asked; nothing was recorded.
        """
        dispute = _dispute(request, transaction_id, dispute_id)
        answer = dispute_answer(
            dispute_id=dispute.pk, action=DisputeAnswer.Action.ACCEPT, evidence=None, actor=_actor(request)
        )
        return _answered(answer)

    @extend_schema(
        operation_id="defend_transaction_dispute",
        request=DisputeDefendInput,
        responses={201: DisputeAnswerOutput},
        parameters=[IDEMPOTENCY_KEY],
    )
    @idempotent
    def defend(self, request: Request, transaction_id: str, dispute_id: str) -> Response:
        """Defend a dispute

        Sends the merchant's evidence (words, and documents of the types and sizes the processor takes) to the
        dispute's processor. Answers what the processor took (`under_review` while the bank decides); the dispute's
        state moves with the processor's next notification. Needs the `disputes.write` scope. An extension of this
        server.

        409: The dispute is closed, already answered or past its due date; its processor's disputes are answered in
        the processor's dashboard; or the processor refused the answer (its reason is the message, nothing is kept).
        503: The processor could not be asked; nothing was recorded.
        """
        dispute = _dispute(request, transaction_id, dispute_id)
        evidence = validated_request(DisputeDefendInput(data=request.data))
        answer = dispute_answer(
            dispute_id=dispute.pk, action=DisputeAnswer.Action.DEFEND, evidence=evidence, actor=_actor(request)
        )
        return _answered(answer)


def _actor(request: Request) -> Actor:
    return Actor.api_key(request_principal(request).kid)
