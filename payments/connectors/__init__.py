"""Payment connectors: the one seam between the services that move money and a processor."""

from payments.connectors.base import (
    AuthorizationRequest,
    BrowserInfo,
    BuyerAction,
    BuyerActionConnector,
    CardDetails,
    ConnectorResult,
    Outcome,
    PaymentConnector,
    PaymentDetails,
    PurchaseDetails,
    RedirectConnector,
    RedirectRequest,
    StatementDescriptor,
    ThreeDSecureData,
    ThreeDSecureStatus,
    payment_details_of,
)

__all__ = [
    "AuthorizationRequest",
    "BrowserInfo",
    "BuyerAction",
    "BuyerActionConnector",
    "CardDetails",
    "ConnectorResult",
    "Outcome",
    "PaymentConnector",
    "PaymentDetails",
    "PurchaseDetails",
    "RedirectConnector",
    "RedirectRequest",
    "StatementDescriptor",
    "ThreeDSecureData",
    "ThreeDSecureStatus",
    "payment_details_of",
]
