"""Every new merchant account starts with the sandbox service (where sandbox payments are allowed): `payments`
creates accounts and knows no resource app, so this app listens for the new row instead.

Every saved or deleted payment service tells the processes that hold its account's routable services
(`payment_services_changed`), whatever saved it: the services, the admin, a test's factory.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from payments.models import MerchantAccount
from paymentservices.models import PaymentService
from paymentservices.selectors import payment_services_changed

_UID = "paymentservices.default_service"
_CHANGED_UID = "paymentservices.routable_changed"


def _account_saved(*, instance: MerchantAccount, created: bool, raw: bool = False, **kwargs: Any) -> None:
    if not created or raw:  # fixtures load rows as they are
        return
    from paymentservices.services import payment_service_default_create

    with transaction.atomic():
        payment_service_default_create(merchant_account=instance)


def _service_changed(*, instance: PaymentService, **kwargs: Any) -> None:
    payment_services_changed(merchant_account_id=instance.merchant_account_id)


def connect() -> None:
    post_save.connect(_account_saved, sender=MerchantAccount, dispatch_uid=_UID)
    post_save.connect(_service_changed, sender=PaymentService, dispatch_uid=_CHANGED_UID)
    post_delete.connect(_service_changed, sender=PaymentService, dispatch_uid=_CHANGED_UID)
