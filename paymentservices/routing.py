"""Which payment services may take a payment, in the order to try them: the one routing decision.

`transactions` asks `route(...)` for the ordered list and tries each service in turn (failover on "no answer");
`connector_for(service)` builds the connector for one of them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from payments.connectors.base import PaymentConnector
from payments.errors import DomainError, NotFound
from payments.models import MerchantAccount
from paymentservices.definitions import DEFINITIONS
from paymentservices.models import PaymentService
from paymentservices.sandbox import REFUSAL, sandbox_payments_allowed
from paymentservices.selectors import payment_service_get
from paymentservices.services import payment_service_credentials

SERVICE_POINTER = "/payment_service_id"


class NoPaymentService(DomainError):
    """No payment service of the account can take the payment (a 400 naming why)."""


@dataclass(frozen=True)
class Route:
    """The services to try for one payment, first choice first."""

    services: tuple[PaymentService, ...]

    @property
    def first(self) -> PaymentService:
        return self.services[0]


def _refusal(service: PaymentService, currency: str, country: str | None) -> str | None:
    """Why `service` cannot take the payment, or None when it can."""
    if service.is_deleted:
        return "The payment service has been deleted."
    if not service.active:
        return "The payment service is not active."
    definition = DEFINITIONS.get(service.definition_id)
    if definition is None:
        return f"The payment service's definition '{service.definition_id}' is not available on this server."
    if definition.sandbox and not sandbox_payments_allowed():
        return REFUSAL
    if currency not in service.accepted_currencies:
        return f"The payment service does not accept {currency}."
    if country is not None and country not in service.accepted_countries:
        return f"The payment service does not accept payments from {country}."
    return None


def route(
    *,
    merchant_account: MerchantAccount,
    currency: str,
    country: str | None = None,
    payment_service_id: uuid.UUID | str | None = None,
) -> Route:
    """The eligible services, in order. With `payment_service_id`: that one service, refused by name when it belongs
    to another account, is inactive or deleted, or does not take the currency or country. Without: the account's
    active services by `position` that take the currency (and the country, when the payment has one)."""
    if payment_service_id is not None:
        try:
            service = payment_service_get(merchant_account=merchant_account, id=payment_service_id)
        except NotFound:
            raise NoPaymentService(
                f"The payment service '{payment_service_id}' does not exist for this merchant account.",
                pointer=SERVICE_POINTER,
            ) from None
        refusal = _refusal(service, currency, country)
        if refusal is not None:
            raise NoPaymentService(refusal, pointer=SERVICE_POINTER)
        return Route((service,))
    candidates = PaymentService.objects.filter(merchant_account=merchant_account, is_deleted=False, active=True)
    eligible = tuple(
        service
        for service in candidates.order_by("position", "created_at")
        if _refusal(service, currency, country) is None
    )
    if not eligible:
        where = f" from {country}" if country else ""
        raise NoPaymentService(
            f"No active payment service of this merchant account takes {currency} payments{where}.",
            pointer="/currency",
        )
    return Route(eligible)


def connector_for(service: PaymentService) -> PaymentConnector:
    """The connector that speaks for `service`, built with its credentials."""
    definition = DEFINITIONS[service.definition_id]
    return definition.connector(payment_service_credentials(service=service))
