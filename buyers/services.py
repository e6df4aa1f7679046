"""Writes of buyers: the API, the admin and the demo seeder all come through here."""

from typing import Any

from django.db import IntegrityError, transaction

from buyers.models import Buyer
from payments.errors import DuplicateRecord
from payments.models import MerchantAccount

_DUPLICATE = "A buyer with this external identifier already exists."
UPDATABLE_FIELDS = ("display_name", "external_identifier", "account_number", "billing_details")


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


def buyer_update(*, buyer: Buyer, **changes: Any) -> Buyer:
    """Apply the given fields only (absent fields keep their value, null clears one)."""
    unknown = set(changes) - set(UPDATABLE_FIELDS)
    if unknown:
        raise TypeError(f"Not updatable: {sorted(unknown)}")
    for name, value in changes.items():
        setattr(buyer, name, value)
    return _save(buyer, update_fields=[*changes, "updated_at"])


@transaction.atomic
def buyer_delete(*, buyer: Buyer) -> None:
    """Delete the buyer; records that referenced it keep their own copy of what they need."""
    buyer.delete()
