"""Reads of payouts, scoped to one merchant account."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound
from payouts.models import Payout


def payout_list(*, merchant_account: MerchantAccount) -> QuerySet[Payout]:
    """The account's payouts, newest first, with what their answers show (service, buyer) read in the same query."""
    return (
        account_rows(Payout, merchant_account)
        .select_related("payment_service", "merchant_account")
        .order_by("-created_at", "-id")
    )


def payout_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> Payout:
    """The account's payout `id`; another account's, or a malformed id, is not found like a missing one."""
    try:
        key = uuid.UUID(str(id))
    except ValueError:
        raise NotFound("The payout could not be found.") from None
    payout = payout_list(merchant_account=merchant_account).filter(pk=key).first()
    if payout is None:
        raise NotFound("The payout could not be found.")
    return payout
