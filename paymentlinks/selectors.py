"""Reads of payment links, scoped to one merchant account."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.db.models import Q, QuerySet
from django.utils import timezone

from paymentlinks.models import PaymentLink, PaymentLinkStatus
from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound

S = PaymentLinkStatus
NOT_FOUND = "The payment link could not be found."


def payment_link_list(*, merchant_account: MerchantAccount) -> QuerySet[PaymentLink]:
    """The account's links; pagination orders them."""
    return account_rows(PaymentLink, merchant_account)


def payment_link_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> PaymentLink:
    """One link of the account; another account's is not found, like a missing one."""
    link = payment_link_list(merchant_account=merchant_account).filter(pk=_uuid(id)).first()
    if link is None:
        raise NotFound(NOT_FOUND)
    return link


def payment_link_get_by_id(*, id: uuid.UUID | str) -> PaymentLink:
    """A link by its id alone: the hosted page's address is its only credential."""
    link = PaymentLink.objects.select_related("merchant_account").filter(pk=_uuid(id)).first()
    if link is None:
        raise NotFound(NOT_FOUND)
    return link


def payment_links_with_status(queryset: QuerySet[PaymentLink], statuses: Iterable[str]) -> QuerySet[PaymentLink]:
    """Links whose shown status (`PaymentLink.shown_status`) is any of `statuses`: an active link past its deadline
    counts as expired before the expiry job has recorded it."""
    now = timezone.now()
    lapsed = Q(status=S.ACTIVE, expires_at__lte=now)
    shown = {
        S.ACTIVE: Q(status=S.ACTIVE) & ~lapsed,
        S.EXPIRED: Q(status=S.EXPIRED) | lapsed,
        S.PROCESSING: Q(status=S.PROCESSING),
        S.COMPLETED: Q(status=S.COMPLETED),
    }
    condition = Q(pk__in=[])
    for status in statuses:
        condition |= shown[S(status)]
    return queryset.filter(condition)


def payment_links_buyer_search(queryset: QuerySet[PaymentLink], terms: Iterable[str]) -> QuerySet[PaymentLink]:
    """Links whose buyer's name, external identifier or email contains any of `terms` (upstream's `buyer_search`)."""
    condition = Q(pk__in=[])
    for term in terms:
        condition |= (
            Q(buyer__display_name__icontains=term)
            | Q(buyer__external_identifier__icontains=term)
            | Q(buyer__billing_details__email_address__icontains=term)
        )
    return queryset.filter(condition)


def _uuid(value: uuid.UUID | str) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise NotFound(NOT_FOUND) from None
