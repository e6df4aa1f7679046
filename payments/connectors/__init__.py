"""Payment connectors: the one seam between the services that move money and a processor."""

from functools import cache

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from payments.connectors.base import (
    AuthorizationRequest,
    BrowserInfo,
    CardDetails,
    ConnectorResult,
    Outcome,
    PaymentConnector,
    PaymentDetails,
    PurchaseDetails,
    StatementDescriptor,
    ThreeDSecureData,
    ThreeDSecureStatus,
    payment_details_of,
)

__all__ = [
    "AuthorizationRequest",
    "BrowserInfo",
    "CardDetails",
    "ConnectorResult",
    "Outcome",
    "PaymentConnector",
    "PaymentDetails",
    "PurchaseDetails",
    "StatementDescriptor",
    "ThreeDSecureData",
    "ThreeDSecureStatus",
    "get_connector",
    "payment_details_of",
]


@cache
def get_connector() -> PaymentConnector:
    """The connector named by the `PAYMENT_CONNECTOR` setting, built once per process."""
    connector = import_string(settings.PAYMENT_CONNECTOR)()
    if not isinstance(connector, PaymentConnector):
        raise TypeError(f"{settings.PAYMENT_CONNECTOR} does not implement PaymentConnector.")
    return connector


@receiver(setting_changed)
def _forget_connector(*, setting: str, **kwargs: object) -> None:
    if setting == "PAYMENT_CONNECTOR":
        get_connector.cache_clear()
