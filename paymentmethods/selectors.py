"""Reads of stored payment methods, always scoped to one merchant account, and the lookup a payment makes."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.utils import timezone

from buyers.access import UNRESTRICTED, BuyerAccess
from buyers.selectors import buyer_ids_named, buyer_owned
from paymentmethods.models import PaymentMethod
from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import DomainError, NotFound
from payments.vault.models import VaultedCard

_NOT_FOUND = "The payment method could not be found."
SORT_FIELDS = ("last_used_at", "usage_count", "cit_last_used_at", "cit_usage_count")


def payment_method_list(
    *, merchant_account: MerchantAccount, access: BuyerAccess = UNRESTRICTED
) -> QuerySet[PaymentMethod]:
    """The account's stored methods `access` may see (an embed token: its pinned buyer's), with their card and buyer,
    in one query; pagination orders them."""
    methods = account_rows(PaymentMethod, merchant_account).select_related("card", "buyer")
    return access.confine(methods)


def payment_method_get(
    *, merchant_account: MerchantAccount, id: UUID | str, access: BuyerAccess = UNRESTRICTED
) -> PaymentMethod:
    """One stored method; another account's method, or one `access` may not touch (another buyer's), is not found,
    like a missing one. A caller confined to no buyer names none (403)."""
    access.require_pinned_buyer(what="stored payment methods", pointer="/payment_method_id", location="path")
    try:
        return payment_method_list(merchant_account=merchant_account, access=access).get(id=id)
    except (PaymentMethod.DoesNotExist, ValueError, ValidationError) as exc:
        raise NotFound(_NOT_FOUND) from exc


def payment_method_list_for_buyer(
    *,
    merchant_account: MerchantAccount,
    buyer_id: UUID | None = None,
    buyer_external_identifier: str | None = None,
    sort_by: str | None = None,
    order_by: str = "desc",
    access: BuyerAccess = UNRESTRICTED,
) -> QuerySet[PaymentMethod]:
    """One buyer's methods, newest first unless sorted by use; an unknown buyer has none, and so has one `access` may
    not touch (a buyer it does not pin: 403 when named by the claim the token pins)."""
    access.require_named(buyer_id=buyer_id, buyer_external_identifier=buyer_external_identifier, creating=False)
    if access.restricted and buyer_id is None and buyer_external_identifier is None:
        access.require_pinned_buyer(what="stored payment methods", pointer="/buyer_id")
    return buyer_owned(
        payment_method_list(merchant_account=merchant_account, access=access),
        buyer_id=buyer_id,
        buyer_external_identifier=buyer_external_identifier,
        sort_field=sort_by,
        order_by=order_by,
    )


def payment_method_expired(method: PaymentMethod, *, now: datetime | None = None) -> bool:
    """A card is valid to the end of its expiry month."""
    today = timezone.localdate(now or timezone.now(), timezone=timezone.get_fixed_timezone(0))
    return (method.card.expiration_year, method.card.expiration_month) < (today.year, today.month)


def payment_method_for_payment(
    *, merchant_account: MerchantAccount, id: UUID, buyer_id: UUID | None, pointer: str
) -> PaymentMethod:
    """The method a payment names: not found unless it is the account's and, when the payment names a buyer, that
    buyer's (another buyer's method, or a method of no buyer, answers exactly as a missing one); an expired card is
    refused."""
    queryset = payment_method_list(merchant_account=merchant_account).filter(id=id)
    if buyer_id is not None:
        queryset = queryset.filter(buyer_id=buyer_id)
    method = queryset.first()
    if method is None:
        raise NotFound(_NOT_FOUND, pointer=pointer)
    if payment_method_expired(method):
        raise DomainError(
            f"The stored card expired at the end of {method.expiration_date}: update its expiration_date "
            "(PUT /payment-methods/{id}) if the issuer renewed it, or store the new card.",
            pointer=pointer,
        )
    return method


def payment_method_card_for_session(*, merchant_account: MerchantAccount, id: UUID, pointer: str) -> VaultedCard:
    """The card of the account's stored method `id`, for Secure Fields to put on a checkout session (registered with
    `checkout.stored_methods`): any method of the account whose card can pay, since a session names no buyer of its
    own; the payment that uses the session checks its buyer (`payment_method_for_payment`) and its caller's access."""
    return payment_method_for_payment(merchant_account=merchant_account, id=id, buyer_id=None, pointer=pointer).card


def payment_method_staff_search(queryset: QuerySet[PaymentMethod], term: str) -> QuerySet[PaymentMethod]:
    """What support types to find a stored card (docs/admin.md): the method's or its buyer's id, the card's last 4
    digits, the method's or the buyer's external identifier, or part of the buyer's name or email address."""
    term = term.strip()
    try:
        pk = UUID(term)
    except ValueError:
        pass
    else:
        return queryset.filter(Q(pk=pk) | Q(buyer_id=pk))
    if len(term) == 4 and term.isdigit():
        return queryset.filter(card__last4=term)
    buyers = buyer_ids_named(term)
    return queryset.filter(Q(external_identifier=term) | Q(buyer__external_identifier=term) | Q(buyer_id__in=buyers))
