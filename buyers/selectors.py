"""Reads of buyers, always scoped to one merchant account."""

import uuid
from typing import TypeVar

from django.core.exceptions import ValidationError
from django.db.models import F, Model, OrderBy, Q, QuerySet

from buyers.access import UNRESTRICTED, BuyerAccess
from buyers.models import Buyer, ShippingDetails
from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import DomainError, Forbidden, NotFound
from payments.remembered import remembered

M = TypeVar("M", bound=Model)


def buyer_list(*, merchant_account: MerchantAccount) -> QuerySet[Buyer]:
    """The account's buyers; pagination orders them."""
    return account_rows(Buyer, merchant_account)


def buyer_search(queryset: QuerySet[Buyer], term: str) -> QuerySet[Buyer]:
    """Buyers whose display name contains `term` (any case) or whose external identifier is `term`."""
    return queryset.filter(Q(display_name__icontains=term) | Q(external_identifier=term))


def buyer_get(
    *,
    merchant_account: MerchantAccount,
    id: uuid.UUID | str | None = None,
    external_identifier: str | None = None,
    access: BuyerAccess = UNRESTRICTED,
) -> Buyer:
    """One buyer by id or external identifier; another account's buyer, or one `access` may not touch (not the
    token's pinned buyer), is not found, like a missing one. A caller confined to no buyer names none (403)."""
    access.require_pinned_buyer(what="buyers", pointer="/buyer_id", location="path")
    lookup = {"id": id} if id is not None else {"external_identifier": external_identifier}
    try:
        return access.confine(buyer_list(merchant_account=merchant_account), path=None).get(**lookup)
    except (Buyer.DoesNotExist, ValueError, ValidationError) as exc:
        raise NotFound("The buyer could not be found.") from exc


def buyer_named(
    *,
    merchant_account: MerchantAccount,
    buyer_id: uuid.UUID | None = None,
    buyer_external_identifier: str | None = None,
    access: BuyerAccess = UNRESTRICTED,
) -> Buyer | None:
    """The buyer a request's body names (by id when it gives both), None when it names none; one the token may not
    name is a 403 (`buyers.access`), a missing one a 400 at the field that named it. What every write that takes
    `buyer_id` / `buyer_external_identifier` calls."""
    access.require_named(buyer_id=buyer_id, buyer_external_identifier=buyer_external_identifier)
    if buyer_id is None and buyer_external_identifier is None:
        return None
    pointer = "/buyer_id" if buyer_id is not None else "/buyer_external_identifier"
    try:
        buyer = buyer_get(merchant_account=merchant_account, id=buyer_id, external_identifier=buyer_external_identifier)
    except NotFound as exc:
        raise DomainError("No buyer with this identifier exists.", pointer=pointer) from exc
    if not access.owns(buyer):  # named by a field the token does not pin, and not its buyer
        raise Forbidden("This token only allows the buyer it was issued for.", pointer=pointer)
    return buyer


def shipping_details_list(*, buyer: Buyer) -> QuerySet[ShippingDetails]:
    """The buyer's shipping details, newest first."""
    return ShippingDetails.objects.filter(buyer=buyer).order_by("-created_at", "-id")


def shipping_details_get(
    *,
    merchant_account: MerchantAccount,
    buyer_id: uuid.UUID | str,
    id: uuid.UUID | str,
    access: BuyerAccess = UNRESTRICTED,
) -> ShippingDetails:
    """One of a buyer's shipping details, in one query; another buyer's or another account's details, or those of a
    buyer `access` may not touch, are not found, exactly like missing ones."""
    access.require_pinned_buyer(what="shipping details", pointer="/buyer_id", location="path")
    try:
        details = access.confine(ShippingDetails.objects.all())
        return details.get(buyer__merchant_account=merchant_account, buyer_id=buyer_id, id=id)
    except (ShippingDetails.DoesNotExist, ValueError, ValidationError) as exc:
        raise NotFound("The shipping details could not be found.") from exc


def buyer_owned(
    queryset: QuerySet[M],
    *,
    buyer_id: uuid.UUID | None = None,
    buyer_external_identifier: str | None = None,
    sort_field: str | None = None,
    order_by: str = "desc",
) -> QuerySet[M]:
    """One buyer's rows of `queryset` (a model with a `buyer`), newest first unless sorted by `sort_field` (nulls
    last); what `GET /buyers/gift-cards` and `GET /buyers/payment-methods` list."""
    if buyer_id is not None:
        queryset = queryset.filter(buyer_id=buyer_id)
    if buyer_external_identifier is not None:
        queryset = queryset.filter(buyer__external_identifier=buyer_external_identifier)
    ordering: list[str | OrderBy] = ["-created_at", "-id"]
    if sort_field is not None:
        field = F(sort_field)
        ordering.insert(0, field.desc(nulls_last=True) if order_by == "desc" else field.asc(nulls_last=True))
    return queryset.order_by(*ordering)


# How many buyers a partial name or email address may stand for when another resource is searched by its buyer.
BUYER_NAME_MATCHES = 500


def buyer_ids_named(term: str) -> list[uuid.UUID]:
    """Ids of up to `BUYER_NAME_MATCHES` buyers of any account whose display name or email address contains `term`,
    in any case (the trigram indexes of docs/admin.md serve both on PostgreSQL). Asked once per desk search, however
    many finders ask (`payments.remembered`)."""

    def read() -> list[uuid.UUID]:
        return list(Buyer.objects.filter(_named(term)).values_list("id", flat=True)[:BUYER_NAME_MATCHES])

    return remembered(("buyer_ids_named", term), read)


def buyer_ids_with_name(*, merchant_account: MerchantAccount, term: str, limit: int) -> list[uuid.UUID]:
    """Ids of up to `limit` of the account's buyers whose display name contains `term`, in any case (the trigram
    index of docs/admin.md on PostgreSQL): read first, so that a search across transactions stays on their own
    indexes instead of joining every row to its buyer."""
    named = account_rows(Buyer, merchant_account).filter(display_name__icontains=term)
    return list(named.values_list("id", flat=True)[:limit])


def buyer_staff_search(queryset: QuerySet[Buyer], term: str) -> QuerySet[Buyer]:
    """What support types to find a buyer, read as one kind of term (docs/admin.md): an id; anything with `@` is
    part of an email address; anything else an external identifier, or part of a name or of an email address."""
    term = term.strip()
    try:
        return queryset.filter(id=uuid.UUID(term))
    except ValueError:
        pass
    if "@" in term:
        return queryset.filter(billing_details__email_address__icontains=term)
    return queryset.filter(Q(external_identifier=term) | _named(term))


def _named(term: str) -> Q:
    return Q(display_name__icontains=term) | Q(billing_details__email_address__icontains=term)
