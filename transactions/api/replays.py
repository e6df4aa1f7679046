"""A transaction answer replayed for an `Idempotency-Key` (registered in `TransactionsConfig.ready`).

Its `payment_method.approval_url` carries the token that opens the 3-D Secure challenge page (and, for Stripe's own
challenge, the PaymentIntent's client secret behind it), so it is never stored with the answer, which is kept for
the key's 24 hours: each replay makes it again from the transaction as it is now, as a read does. The page while the
challenge waits, null once it was completed, canceled or expired (docs/three-d-secure.md).
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from payments.errors import NotFound
from payments.rest.idempotency import LiveField
from payments.rest.permissions import request_merchant_account
from transactions.api.serializers.outputs import transaction_approval_url
from transactions.models import TransactionStatus
from transactions.selectors import transaction_get


def _payment_method(answer: dict[str, Any]) -> dict[str, Any] | None:
    method = answer.get("payment_method")
    return method if isinstance(method, dict) and "approval_url" in method else None


def _challenged(answer: dict[str, Any]) -> bool:
    # Only a create answers `buyer_approval_pending`, and only such an answer may have a page: every other replay
    # (a decline, a frictionless payment, a capture) is the stored bytes, with no query.
    return answer.get("status") == TransactionStatus.BUYER_APPROVAL_PENDING


def approval_url_withhold(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer as stored: no page address, whatever the transaction's state."""
    method = _payment_method(answer)
    if method is not None:
        method["approval_url"] = None
    return answer


def approval_url_rebuild(answer: dict[str, Any], request: Request) -> dict[str, Any]:
    """The stored answer with the page's address as the transaction stands now (one query for the transaction, one
    for its challenge while it waits)."""
    method = _payment_method(answer)
    if method is None or not _challenged(answer):
        return answer
    try:
        txn = transaction_get(merchant_account=request_merchant_account(request), id=str(answer.get("id")))
    except NotFound:
        return answer
    method["approval_url"] = transaction_approval_url(txn, request)
    return answer


APPROVAL_URL = LiveField(withhold=approval_url_withhold, rebuild=approval_url_rebuild)
