"""Every new merchant account starts with the sandbox service (where sandbox payments are allowed).

`payments` creates accounts and knows no resource app: this app listens for the new row instead.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from payments.models import MerchantAccount

_UID = "paymentservices.default_service"


def _account_saved(*, instance: MerchantAccount, created: bool, raw: bool = False, **kwargs: Any) -> None:
    if not created or raw:  # fixtures load rows as they are
        return
    from paymentservices.services import payment_service_default_create

    with transaction.atomic():
        payment_service_default_create(merchant_account=instance)


def connect() -> None:
    post_save.connect(_account_saved, sender=MerchantAccount, dispatch_uid=_UID)
