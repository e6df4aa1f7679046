"""Reads of buyers, always scoped to one merchant account."""

import uuid

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet

from buyers.models import Buyer
from payments.errors import NotFound
from payments.models import MerchantAccount


def buyer_list(*, merchant_account: MerchantAccount) -> QuerySet[Buyer]:
    """The account's buyers; pagination orders them."""
    return Buyer.objects.filter(merchant_account=merchant_account)


def buyer_search(queryset: QuerySet[Buyer], term: str) -> QuerySet[Buyer]:
    """Buyers whose display name contains `term` (any case) or whose external identifier is `term`."""
    return queryset.filter(Q(display_name__icontains=term) | Q(external_identifier=term))


def buyer_get(
    *, merchant_account: MerchantAccount, id: uuid.UUID | str | None = None, external_identifier: str | None = None
) -> Buyer:
    """One buyer by id or external identifier; another account's buyer is not found, like a missing one."""
    lookup = {"id": id} if id is not None else {"external_identifier": external_identifier}
    try:
        return buyer_list(merchant_account=merchant_account).get(**lookup)
    except (Buyer.DoesNotExist, ValueError, ValidationError) as exc:
        raise NotFound("The buyer could not be found.") from exc


def buyer_ids_named(term: str, *, limit: int) -> QuerySet[Buyer, uuid.UUID]:
    """Ids of up to `limit` buyers of any account whose display name contains `term`, in any case (the trigram
    index of docs/admin.md serves it on PostgreSQL)."""
    return Buyer.objects.filter(display_name__icontains=term).values_list("id", flat=True)[:limit]
