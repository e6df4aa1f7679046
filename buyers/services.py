"""Writes of buyers: the API, the admin and the demo seeder all come through here."""

from typing import Any

from django.db import IntegrityError, transaction

from buyers.models import Buyer, ShippingDetails
from payments.accounts.models import MerchantAccount
from payments.errors import Conflict, DuplicateRecord, NotFound
from payments.partial import UNCHANGED, Unchanged, changed_fields

_DUPLICATE = "A buyer with this external identifier already exists."
SHIPPING_DETAILS_FIELDS = ("first_name", "last_name", "email_address", "phone_number", "address")
# Upstream's list of a buyer's shipping details has no pages: a bound keeps every answer small.
MAX_SHIPPING_DETAILS_PER_BUYER = 50


def _save(buyer: Buyer, **save_kwargs: Any) -> Buyer:
    # The unique constraint decides races between two writers; the message names the field either way.
    try:
        with transaction.atomic():
            buyer.save(**save_kwargs)
    except IntegrityError as exc:
        raise DuplicateRecord(_DUPLICATE, pointer="/external_identifier") from exc
    return buyer


def buyer_create(
    *,
    merchant_account: MerchantAccount,
    display_name: str | None = None,
    external_identifier: str | None = None,
    account_number: str | None = None,
    billing_details: dict[str, Any] | None = None,
) -> Buyer:
    """Create a buyer; a taken `external_identifier` in the same account is a DuplicateRecord."""
    buyer = Buyer(
        merchant_account=merchant_account,
        display_name=display_name,
        external_identifier=external_identifier,
        account_number=account_number,
        billing_details=billing_details,
    )
    return _save(buyer, force_insert=True)


def buyer_update(
    *,
    buyer: Buyer,
    display_name: str | Unchanged | None = UNCHANGED,
    external_identifier: str | Unchanged | None = UNCHANGED,
    account_number: str | Unchanged | None = UNCHANGED,
    billing_details: dict[str, Any] | Unchanged | None = UNCHANGED,
) -> Buyer:
    """Apply the given fields only (absent fields keep their value, null clears one)."""
    changes = changed_fields(
        display_name=display_name,
        external_identifier=external_identifier,
        account_number=account_number,
        billing_details=billing_details,
    )
    for name, value in changes.items():
        setattr(buyer, name, value)
    return _save(buyer, update_fields=[*changes, "updated_at"])


@transaction.atomic
def buyer_delete(*, buyer: Buyer) -> None:
    """Delete the buyer; records that referenced it keep their own copy of what they need."""
    buyer.delete()


def _only(changes: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = set(changes) - set(allowed)
    if unknown:
        raise TypeError(f"Not updatable: {sorted(unknown)}")


@transaction.atomic
def shipping_details_create(*, buyer: Buyer, **fields: Any) -> ShippingDetails:
    """Add shipping details to the buyer; a buyer keeps at most MAX_SHIPPING_DETAILS_PER_BUYER of them."""
    _only(fields, SHIPPING_DETAILS_FIELDS)
    # The buyer's row lock makes the count and the insert one step, so racing creates cannot pass the bound.
    if Buyer.objects.select_for_update().filter(pk=buyer.pk).first() is None:
        raise NotFound("The buyer could not be found.")  # deleted while this request ran
    if ShippingDetails.objects.filter(buyer=buyer).count() >= MAX_SHIPPING_DETAILS_PER_BUYER:
        raise Conflict(
            f"A buyer keeps at most {MAX_SHIPPING_DETAILS_PER_BUYER} shipping details: delete one to add another."
        )
    return ShippingDetails.objects.create(buyer=buyer, **fields)


@transaction.atomic
def shipping_details_update(
    *,
    shipping_details: ShippingDetails,
    first_name: str | Unchanged | None = UNCHANGED,
    last_name: str | Unchanged | None = UNCHANGED,
    email_address: str | Unchanged | None = UNCHANGED,
    phone_number: str | Unchanged | None = UNCHANGED,
    address: dict[str, Any] | Unchanged | None = UNCHANGED,
) -> ShippingDetails:
    """Apply the given fields only (absent fields keep their value, null clears one)."""
    changes = changed_fields(
        first_name=first_name,
        last_name=last_name,
        email_address=email_address,
        phone_number=phone_number,
        address=address,
    )
    for name, value in changes.items():
        setattr(shipping_details, name, value)
    shipping_details.save(update_fields=[*changes, "updated_at"])
    return shipping_details


@transaction.atomic
def shipping_details_delete(*, shipping_details: ShippingDetails) -> None:
    """Delete the shipping details; transactions that used them keep their own copy."""
    shipping_details.delete()
